package main

import (
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// TestRedisFlagSharesTheGuard: the check to keep beside a deployment of
// several instances. Two processes of the binary share the state keys and,
// with -redis, the replay guard on a real redis-server: a production
// deploy asked on A, answered on B and confirmed on A completes once; its
// confirmation replayed on B is refused. (runtime/redisstore's tests hold
// every case, on a fixture of their own.)
func TestRedisFlagSharesTheGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	srv := redistest.Start(t)
	a, b := startProcServerWith(t, nil, "-redis", srv.URL), startProcServerWith(t, nil, "-redis", srv.URL)
	round := func(p *procServer, state, responses string) (map[string]any, map[string]any) {
		t.Helper()
		_, data := procPost(t, p.url, procCall(`{"service":"api"}`, state, responses))
		return procJSONRPC(t, "deploy", data)
	}
	first, _ := round(a, "", "")
	second, _ := round(b, first["requestState"].(string), `{"target":{"action":"accept","content":{"environment":"prod"}}}`)
	state, _ := second["requestState"].(string)
	if state == "" {
		t.Fatalf("B after the target: %v", second)
	}
	confirm := `{"confirm":{"action":"accept","content":{"confirm":true}}}`
	done, rpcErr := round(a, state, confirm)
	if rpcErr != nil || !strings.Contains(toText(done), "Deploying api to prod") {
		t.Fatalf("the confirmation on A: %v %v", done, rpcErr)
	}
	if again, rpcErr := round(b, state, confirm); rpcErr == nil || !strings.Contains(rpcErr["message"].(string), "requestState already used") {
		t.Fatalf("the confirmation replayed on B: %v %v, want it refused as used", again, rpcErr)
	}
}

// toText is the text of a tools/call result's first content.
func toText(result map[string]any) string {
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	return text
}
