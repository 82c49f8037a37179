package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRouterReadsPost measures what the router adds to a POST by
// reading its body (readPost and bodyChecked): a small tools/call, and one
// near the body limit, with the 2026-07-28 version header (scanned, not
// decoded) and without one (decoded as the SDK does).
func BenchmarkRouterReadsPost(b *testing.B) {
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return nil }, nil, Hooks{})
	for _, version := range []string{httpModernVersion, ""} {
		for _, pad := range []int{100, 200 << 10} {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":%q},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, strings.Repeat("x", pad))
			b.Run(fmt.Sprintf("header=%q/%dB", version, len(body)), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
					r.Header.Set(httpVersionHeader, version)
					post, err := h.readPost(r)
					if err != nil || !bodyChecked(nil, r, post) {
						b.Fatal("refused")
					}
				}
			})
		}
	}
}

// routerBodies are POST bodies for the router's scan: ordinary requests,
// and the checked methods hidden from a byte search every way JSON
// allows (escapes in the value or the key, other letter cases, duplicate
// members, batches, whitespace, malformed text).
func routerBodies() []string {
	var values []string
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen", "tools/call", "initialize", "server/discover"} {
		values = append(values, m, strings.Replace(m, "/", `\/`, 1), fmt.Sprintf(`\u%04x`, m[0])+m[1:],
			m[:len(m)-1]+fmt.Sprintf(`\u%04X`, m[len(m)-1]), strings.ToUpper(m[:1])+m[1:], m+" ", "\xff"+m)
	}
	keys := []string{`"method"`, `"Method"`, `"METHOD"`, `"meth\u006fd"`, "\n\t\"method\" "}
	var bodies []string
	for i, v := range values {
		for j, k := range keys {
			params := `"params":{"taskId":"T1","notifications":{"taskIds":["T1"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`
			if (i+j)%2 == 1 {
				params = `"params":{"taskId":"T1","notifications":{"taskIds":["T1"],"TASKIDS":[]}}`
			}
			one := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,%s:"%s",%s}`, k, v, params)
			bodies = append(bodies, one, "["+one+"]", " [ "+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}, `+one+"]",
				fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call",%s:"%s",%s}`, k, v, params),
				fmt.Sprintf(`{"jsonrpc":"2.0","id":1,%s:"%s","method":"tools/call",%s}`, k, v, params),
				one+" trailing", "\ufeff"+one, strings.ReplaceAll(one, ",", " ,\r\n "))
		}
	}
	return append(bodies, ``, `null`, `[]`, `{}`, `not json`, `[{"method":["tasks/get"]}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"text":"tasks/get"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"text":"a \"quoted\" word"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"method":"tasks/get"}}`)
}

// postOutcome is what the router makes of a POST with post read from it:
// bodyChecked's verdict and answer, and the route.
func postOutcome(r *http.Request, post *httpPost) string {
	rec := httptest.NewRecorder()
	ok := bodyChecked(rec, r, post)
	route, reason, err := routeOf(r, post)
	return fmt.Sprintf("%v %d %s | %v %s %v", ok, rec.Code, rec.Body.String(), route, reason, err)
}

// checkScan compares, for body posted with each version header and each
// Mcp-Name, what the router makes of it through readPost (which may skip
// the decode) and through the full decode; it reports whether readPost
// skipped the decode of a body that holds requests.
func checkScan(t *testing.T, h *HTTPHandler, body string) (skipped bool) {
	t.Helper()
	for i := range 6 {
		version, name := []string{httpModernVersion, "", "2025-11-25"}[i/2], []string{"decoy", "T1"}[i%2]
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set(httpVersionHeader, version)
		r.Header.Set(httpNameHeader, name)
		post, err := h.readPost(r)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		reqs, batch := httpRequests([]byte(body))
		got, want := postOutcome(r, post), postOutcome(r, &httpPost{reqs: reqs, batch: batch})
		if got != want {
			t.Errorf("version %q, Mcp-Name %s, body %q:\nscanned: %s\ndecoded: %s", version, name, body, got, want)
		}
		skipped = skipped || post.reqs == nil && len(reqs) > 0
	}
	return skipped
}

// TestRouterScanAgreesWithDecode: a POST whose version header routes it is
// decoded only when it may hold a request the router checks; whatever the
// body, the router's answer and route are the ones the full decode gives.
// An ordinary tools/call is not decoded.
func TestRouterScanAgreesWithDecode(t *testing.T) {
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return nil }, nil, Hooks{})
	skipped := 0
	for _, body := range routerBodies() {
		if checkScan(t, h, body) {
			skipped++
		}
	}
	plain := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	if !checkScan(t, h, plain) || skipped == 0 {
		t.Errorf("an ordinary tools/call was decoded (%d bodies not decoded)", skipped)
	}
}

// FuzzRouterScan: TestRouterScanAgreesWithDecode for any body.
func FuzzRouterScan(f *testing.F) {
	for _, body := range routerBodies() {
		f.Add(body)
	}
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return nil }, nil, Hooks{})
	f.Fuzz(func(t *testing.T, body string) { checkScan(t, h, body) })
}
