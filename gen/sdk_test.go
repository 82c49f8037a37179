package gen_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/gen"
)

// TestSchemasPassSDKClientValidation sends every schema generated for the
// golden cases to a real Go SDK v1.8.0 client, through a real server over
// the SDK's in-memory transport, as a form-mode input request. The client
// validates each requestedSchema before calling its elicitation handler and
// aborts the call on any problem, so a completed call whose handler saw the
// schema proves the client accepted it.
func TestSchemasPassSDKClientValidation(t *testing.T) {
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	schemas := map[string]json.RawMessage{}
	for _, c := range loadCases(t) {
		if c.stderr != nil {
			continue
		}
		dir := filepath.Join(root, c.name)
		writeCase(t, c, dir, false)
		pkgs, fset, diags, _, err := gen.Load(gen.Config{Dir: dir})
		if err != nil || len(diags) > 0 {
			t.Fatalf("%s: %v %v", c.name, err, diags)
		}
		model, diags := gen.Check(pkgs, fset)
		if len(diags) > 0 {
			t.Fatalf("%s: %v", c.name, diags)
		}
		for _, p := range model.Packages {
			for _, f := range p.Files {
				for _, form := range f.Forms {
					schemas[c.name+"."+form.Name] = form.Schema
				}
			}
		}
	}
	if len(schemas) == 0 {
		t.Fatal("no schemas")
	}

	type askArgs struct {
		Form string `json:"form"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "schemas", Version: "v0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, args askArgs) (*mcp.CallToolResult, any, error) {
		if len(req.Params.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"q": &mcp.ElicitParams{Mode: "form", Message: "Fill in " + args.Form, RequestedSchema: schemas[args.Form]},
			}}, nil, nil
		}
		r, ok := req.Params.InputResponses["q"].(*mcp.ElicitResult)
		if !ok {
			return nil, nil, errorString("no elicitation result")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Action}}}, nil, nil
	})

	var mu sync.Mutex
	seen := map[string]map[string]any{}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			name := strings.TrimPrefix(req.Params.Message, "Fill in ")
			b, _ := json.Marshal(req.Params.RequestedSchema)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			seen[name] = m
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// The control: a nested schema, which the client must refuse. Without it
	// this test could not tell a validating client from one that checks
	// nothing.
	control := json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`)
	schemas["control.nested"] = control
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: askArgs{Form: "control.nested"}}); err == nil {
		t.Fatal("the SDK client accepted a nested schema: this test proves nothing")
	}
	delete(schemas, "control.nested")

	for name, schema := range schemas {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: askArgs{Form: name}})
		if err != nil {
			t.Errorf("%s: the SDK client rejected the schema: %v\n%s", name, err, schema)
			continue
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "decline" {
			t.Errorf("%s: unexpected result %+v", name, res)
		}
		var want map[string]any
		if err := json.Unmarshal(schema, &want); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := seen[name]
		mu.Unlock()
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s: the client saw a different schema\n got %s\nwant %s", name, gotJSON, wantJSON)
		}
	}
	t.Logf("%d generated schemas accepted by the SDK client", len(schemas))
}

type errorString string

func (e errorString) Error() string { return string(e) }
