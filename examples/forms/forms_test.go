package forms

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// newServer has one tool, "deploy", that asks DeployForm through an MRTR
// input request and decodes the answer with the generated decoder.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "forms", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		answer, ok := req.Params.InputResponses["where"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"where": DeployForm{}.ElicitParams("Which environment should I deploy to?"),
			}}, nil, nil
		}
		if answer.Action != "accept" {
			return text("nothing deployed: " + answer.Action), nil, nil
		}
		var form DeployForm
		if err := form.DecodeElicit(answer.Content); err != nil {
			return text(err.Error()), nil, nil
		}
		return text(fmt.Sprintf("deploying to %s, notify=%t", form.Environment, form.Notify)), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "profile"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		answer, ok := req.Params.InputResponses["p"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"p": Profile{}.ElicitParams("Your profile")}}, nil, nil
		}
		var p Profile
		if err := p.DecodeElicit(answer.Content); err != nil {
			return text(err.Error()), nil, nil
		}
		return text(fmt.Sprintf("%s <%s> %v %v", p.Name, p.Email, p.Palette, p.Birthday.Format("2006-01-02"))), nil, nil
	})
	return server
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

type answer struct {
	action  string
	content map[string]any
}

// connect returns a client session to newServer over the named transport,
// whose elicitation handler answers with a.
func connect(t *testing.T, transport string, a *answer) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: a.action, Content: a.content}, nil
		},
	})
	var ct mcp.Transport
	switch transport {
	case "memory":
		st, c := mcp.NewInMemoryTransports()
		ss, err := newServer().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	case "http":
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer() },
			&mcp.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestFormsOverSDK asks the generated forms through a real Go SDK client and
// server, in memory and over streamable HTTP on 127.0.0.1, and decodes the
// answers with the generated decoders.
func TestFormsOverSDK(t *testing.T) {
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			a := &answer{action: "accept", content: map[string]any{"environment": "prod", "notify": true}}
			cs := connect(t, transport, a)
			if got := callText(t, cs, "deploy"); got != "deploying to prod, notify=true" {
				t.Errorf("accept: %q", got)
			}
			// The SDK client fills the schema default for notify before sending.
			a.content = map[string]any{"environment": "staging"}
			if got := callText(t, cs, "deploy"); got != "deploying to staging, notify=false" {
				t.Errorf("default: %q", got)
			}
			a.action, a.content = "decline", nil
			if got := callText(t, cs, "deploy"); got != "nothing deployed: decline" {
				t.Errorf("decline: %q", got)
			}
			// The SDK client validates content against the schema, but not
			// formats; the generated decoder catches them on the server.
			a.action = "accept"
			a.content = map[string]any{"name": "Ada", "email": "not-an-email", "birthday": "2026-02-30", "palette": []any{"red"}}
			want := "invalid content: email: must be an email address; birthday: must be a calendar date (YYYY-MM-DD)"
			if got := callText(t, cs, "profile"); got != want {
				t.Errorf("formats:\n got %q\nwant %q", got, want)
			}
			a.content = map[string]any{"name": "Ada", "email": "ada@example.com", "birthday": "1815-12-10", "palette": []any{"blue", "red"}}
			if got := callText(t, cs, "profile"); got != "Ada <ada@example.com> [blue red] 1815-12-10" {
				t.Errorf("profile: %q", got)
			}
		})
	}
}

// TestDecodeErrorType shows the error callers inspect.
func TestDecodeErrorType(t *testing.T) {
	var f DeployForm
	err := f.DecodeElicit(map[string]any{"environment": 3.0})
	var ce *elicitrt.ContentError
	if !errors.As(err, &ce) || ce.Reason("environment") != elicitimpl.ReasonString {
		t.Fatalf("got %v", err)
	}
}
