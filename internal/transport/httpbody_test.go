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
// reading its body as the SDK does (readPost and bodyChecked): a small
// tools/call, and one near the body limit.
func BenchmarkRouterReadsPost(b *testing.B) {
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return nil }, nil, Hooks{})
	for _, pad := range []int{100, 200 << 10} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":%q},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, strings.Repeat("x", pad))
		b.Run(fmt.Sprintf("%dB", len(body)), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				post, err := h.readPost(r)
				if err != nil || !bodyChecked(nil, r, post) {
					b.Fatal("refused")
				}
			}
		})
	}
}
