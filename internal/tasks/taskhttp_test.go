package tasks

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/machine"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
)

// TestHTTPHandlerReadsBodiesAsTheSDK: issue 24, finding 5. The Mcp-Name
// check of tasks/* and every other decision the router makes from a body
// read the request the SDK serves: a member the router reads that appears
// twice, or again in another letter case (which encoding/json matches and
// the SDK does not), is a 400; a tasks/* request is checked whatever the
// version headers say, and one in a batch is a 400. Raw requests over HTTP
// on 127.0.0.1; each must be refused without serving the task.
func TestHTTPHandlerReadsBodiesAsTheSDK(t *testing.T) {
	url := httpTServe(t, nil, brewTool(machine.TaskOptional, nil, nil))
	real := startBrew(t, httpWireAt(t, url, capsTasks, ""), map[string]any{})["taskId"].(string)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + capsTasks + `}`
	metaNoVersion := `"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsTasks + `}`
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": "decoy"}
	noVersion := map[string]string{"Mcp-Name": "decoy"}
	get := func(params string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{` + params + `}}`
	}
	refused := []struct {
		name   string
		header map[string]string
		body   string
	}{
		{"case variant after", modern, get(fmt.Sprintf(`"taskId":%q,"TASKID":"decoy",%s`, real, meta))},
		{"case variant before", modern, get(fmt.Sprintf(`"TaskId":"decoy","taskId":%q,%s`, real, meta))},
		{"Kelvin sign", modern, get(fmt.Sprintf(`"taskId":%q,"tas\u212aId":"decoy",%s`, real, meta))},
		{"exact duplicate", modern, get(fmt.Sprintf(`"taskId":"decoy","taskId":%q,%s`, real, meta))},
		{"no version header, no Mcp-Name", map[string]string{}, get(fmt.Sprintf(`"taskId":%q,%s`, real, metaNoVersion))},
		{"no version header, other Mcp-Name", noVersion, get(fmt.Sprintf(`"taskId":%q,%s`, real, metaNoVersion))},
		{"no version header, Mcp-Method says another method", map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "decoy"},
			get(fmt.Sprintf(`"taskId":%q,%s`, real, metaNoVersion))},
		{"method escaped", modern, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks\/get","params":{"taskId":%q,%s}}`, real, meta)},
		{"method and its name in \\u escapes", modern,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"meth\u006fd":"\u0074asks/get","params":{"taskId":%q,%s}}`, real, meta)},
		{"in a batch", map[string]string{"Mcp-Name": real}, "[" + get(fmt.Sprintf(`"taskId":%q,%s`, real, metaNoVersion)) + "]"},
		{"_meta twice", map[string]string{}, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{},` +
			`"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{"listen with notifications twice", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"},
			fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q]},"Notifications":{"taskIds":[]},%s}}`, real, meta)},
		{"listen with taskIds twice", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"},
			fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q],"TASKIDS":[]},%s}}`, real, meta)},
	}
	for _, c := range refused {
		status, _, data := httpt.Post(t, url+"/", c.header, c.body)
		if status != http.StatusBadRequest || strings.Contains(string(data), `"status"`) {
			t.Errorf("%s: HTTP %d %.200s; want 400 without the task", c.name, status, data)
		}
	}
	// The controls: the same request with the right Mcp-Name is served,
	// with and without the version headers.
	served := []struct {
		name   string
		header map[string]string
		body   string
	}{
		{"modern", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": real}, get(fmt.Sprintf(`"taskId":%q,%s`, real, meta))},
		{"no version header", map[string]string{"Mcp-Name": real}, get(fmt.Sprintf(`"taskId":%q,%s`, real, metaNoVersion))},
	}
	for _, c := range served {
		status, _, data := httpt.Post(t, url+"/", c.header, c.body)
		if status != http.StatusOK || !strings.Contains(string(data), real) {
			t.Errorf("%s: HTTP %d %.200s; want the task", c.name, status, data)
		}
	}
}
