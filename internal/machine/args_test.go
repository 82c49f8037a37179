package machine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type argsLevel string

// argsFlat is a flat argument struct with every kind of field the raw
// path takes.
type argsFlat struct {
	Service string    `json:"service"`
	Count   int8      `json:"count,omitempty"`
	Ratio   float64   `json:"ratio,omitempty"`
	Notify  *bool     `json:"notify,omitempty"`
	Level   argsLevel `json:"level,omitempty"`
	Plain   uint
	Ignored string `json:"-"`
}

// argsSchemas are the input schemas the equivalence test registers:
// jsonschema.For's with prefill properties as generated tools have, one
// that allows additional properties, and one with defaults on fields.
func argsSchemas(t *testing.T) map[string]json.RawMessage {
	base, err := jsonschema.For[argsFlat](nil)
	if err != nil {
		t.Fatal(err)
	}
	prefill := json.RawMessage(`{"environment":{"type":"string","enum":["dev","prod"]},"urgent":{"type":"boolean","default":false}}`)
	generated, err := InputSchema(base, prefill)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]json.RawMessage{
		"generated": generated,
		"open":      json.RawMessage(`{"type":"object","required":["service"],"properties":{"service":{"type":"string"},"count":{"type":"integer"},"notify":{"type":["null","boolean"]},"Plain":{"type":"integer","minimum":0}}}`),
		"defaults":  json.RawMessage(`{"type":"object","properties":{"service":{"type":"string","default":"web"},"count":{"type":"integer","default":3},"level":{"type":"string","default":"high"},"nested":{"type":"object","properties":{"x":{"type":"integer","default":1}},"maxProperties":1}},"additionalProperties":false}`),
	}
}

// TestRawArgumentsMatchSDK checks the raw path of AddTool against
// mcp.AddTool: for every schema and every arguments text, the handler sees
// the same typed arguments, or the client gets the same tool error or
// JSON-RPC error.
func TestRawArgumentsMatchSDK(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001)
	corpus := []string{
		``, `null`, `{}`, `{"service":"api"}`, `{"service":5}`, `{"service":"api","extra":1}`,
		`{"service":"api","SERVICE":"x"}`, `{"Service":"api"}`, `{"service":"api","Count":4}`,
		`5`, `[]`, `"x"`, `true`, ` [1] `,
		`{"service":"api","count":1.0}`, `{"service":"api","count":1e2}`, `{"service":"api","count":300}`,
		`{"service":"api","count":-1.5}`, `{"service":"api","ratio":1.5,"Plain":7}`, `{"service":"api","Plain":-1}`,
		`{"service":"api","plain":7}`, `{"service":"api","environment":"prod","urgent":true}`,
		`{"service":"api","environment":"moon"}`, `{"service":"a","service":"b"}`, `{"service":"\ud800x"}`,
		`{"service":"api","notify":null}`, `{"service":"api","notify":true,"level":"low"}`,
		`{"service":"api","nested":{}}`, `{"service":"api","nested":{"y":2}}`, `{"service":"api","notify":"yes"}`,
		`{"service":null}`, `{"a":` + deep + `}`, `{"service":"api","Ignored":"x"}`,
	}
	for name, schema := range argsSchemas(t) {
		if newArgsDecoder[argsFlat](schema) == nil {
			t.Fatalf("%s: the raw path does not take argsFlat", name)
		}
		sessions := map[string]*mcp.ClientSession{}
		for _, raw := range []bool{false, true} {
			server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			tool := &mcp.Tool{Name: "t", InputSchema: schema}
			h := func(ctx context.Context, req *mcp.CallToolRequest, a argsFlat) (*mcp.CallToolResult, error) {
				notify := "nil"
				if a.Notify != nil {
					notify = fmt.Sprint(*a.Notify)
				}
				a.Notify = nil
				return elicitrt.Text(fmt.Sprintf("%+v notify=%s", a, notify)), nil
			}
			if raw {
				addRawTool(server, tool, newArgsDecoder[argsFlat](schema), h)
			} else {
				mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, a argsFlat) (*mcp.CallToolResult, any, error) {
					res, err := h(ctx, req, a)
					return res, nil, err
				})
			}
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			sessions[fmt.Sprint(raw)] = cs
		}
		for _, args := range corpus {
			if args == "null" && strings.Contains(string(schema), `"default"`) {
				continue // mcp.AddTool panics (TestRawArgumentsNullWithDefaults)
			}
			var got [2]string
			for i, raw := range []bool{false, true} {
				params := &mcp.CallToolParams{Name: "t"}
				if args != "" {
					params.Arguments = json.RawMessage(args)
				}
				res, err := sessions[fmt.Sprint(raw)].CallTool(t.Context(), params)
				if err != nil {
					got[i] = "error: " + err.Error()
				} else {
					b, _ := json.Marshal(res.Content)
					got[i] = fmt.Sprint(res.IsError, " ", string(b))
				}
			}
			if overflow[args] && got[0] != got[1] {
				// A number the schema accepts and the field cannot hold: a
				// tool error on both paths, worded by each JSON decoder.
				for i := range got {
					if !strings.HasPrefix(got[i], `true [{"type":"text","text":"json: cannot unmarshal number 300`) {
						t.Errorf("schema %s, arguments %s: got %s, want the overflow as a tool error", name, args, got[i])
					}
				}
				continue
			}
			if got[0] != got[1] && !sameAdditional(got[0], got[1]) {
				t.Errorf("schema %s, arguments %.80s:\nmcp.AddTool %s\nraw         %s", name, args, got[0], got[1])
			}
		}
	}
}

// overflow are the arguments whose number overflows its field.
var overflow = map[string]bool{`{"service":"api","count":300}`: true}

// sameAdditional reports whether a and b are the same "unexpected additional
// properties" error, whose list jsonschema-go writes in map order.
func sameAdditional(a, b string) bool {
	if !strings.Contains(a, "unexpected additional properties") {
		return false
	}
	sorted := func(s string) string {
		r := []rune(s)
		slices.Sort(r)
		return string(r)
	}
	return sorted(a) == sorted(b)
}

// TestRawArgumentsNullWithDefaults: "arguments": null, which makes
// mcp.AddTool's path panic in ApplyDefaults (a nil map) when the schema has
// a default, killing the process, is answered as no arguments.
func TestRawArgumentsNullWithDefaults(t *testing.T) {
	d := newArgsDecoder[argsFlat](argsSchemas(t)["defaults"])
	for _, data := range []string{"null", " null ", ""} {
		args, bad := d.decode(json.RawMessage(data))
		if bad != nil {
			t.Fatalf("%q: %+v", data, bad.Content[0])
		}
		if args.Service != "web" || args.Count != 3 || args.Level != "high" {
			t.Errorf("%q: got %+v, want the defaults", data, args)
		}
	}
}

// TestNullArgumentsNested: a tool with a nested argument struct keeps
// mcp.AddTool, and "arguments": null, which would panic there when the
// schema has a default, is answered as no arguments.
func TestNullArgumentsNested(t *testing.T) {
	type nested struct {
		Target struct {
			Env string `json:"env"`
		} `json:"target"`
	}
	schema := json.RawMessage(`{"type":"object","properties":{"target":{"type":"object","properties":{"env":{"type":"string"}}},"urgent":{"type":"boolean","default":false}}}`)
	if newArgsDecoder[nested](schema) != nil {
		t.Fatal("a nested struct took the raw path")
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	m := NewMachine("t", nil, Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(fmt.Sprintf("%+v", args)), nil
		},
	}, &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})
	AddTool[nested](server, &mcp.Tool{Name: "t", InputSchema: schema}, m)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []any{json.RawMessage(`null`), nil, json.RawMessage(`{"target":{"env":"dev"}}`)} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "t", Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if res.IsError {
			t.Errorf("%s: tool error %+v", args, res.Content[0])
		}
	}
}

// TestRawArgumentsOnlyFlat: nested or custom-decoded argument structs, and
// schemas that are not JSON text, keep mcp.AddTool.
func TestRawArgumentsOnlyFlat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	if newArgsDecoder[struct{ A []string }](schema) != nil {
		t.Error("a slice field took the raw path")
	}
	if newArgsDecoder[struct{ A struct{ B int } }](schema) != nil {
		t.Error("a struct field took the raw path")
	}
	if newArgsDecoder[struct{ A json.Number }](schema) == nil {
		t.Error("json.Number is a string kind without custom decoding; want the raw path")
	}
	if newArgsDecoder[struct{ T textDecoded }](schema) != nil {
		t.Error("a TextUnmarshaler field took the raw path")
	}
	if newArgsDecoder[struct{ A, B string }](&jsonschema.Schema{Type: "object"}) != nil {
		t.Error("a *jsonschema.Schema took the raw path")
	}
	if newArgsDecoder[struct {
		A string `json:"x"`
		B string `json:"X"`
	}](schema) != nil {
		t.Error("fields differing only in case took the raw path")
	}
	if newArgsDecoder[map[string]any](schema) != nil {
		t.Error("a map took the raw path")
	}
}

type textDecoded struct{ s string }

func (t *textDecoded) UnmarshalText(b []byte) error { t.s = string(b); return nil }

// BenchmarkArgsDecode is the raw path's decoding of deploy's arguments:
// one decode into a map, the defaults, jsonschema-go's Validate, one
// decode into the struct.
func BenchmarkArgsDecode(b *testing.B) {
	schema := json.RawMessage(`{"type":"object","required":["service"],"properties":{"service":{"type":"string","description":"the service to deploy"},"environment":{"type":"string","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","description":"Post in #deployments","default":false}},"additionalProperties":false}`)
	type deployArgs struct {
		Service string `json:"service"`
	}
	data := json.RawMessage(`{"service":"api","environment":"staging"}`)
	d := newArgsDecoder[deployArgs](schema)
	b.ReportAllocs()
	for b.Loop() {
		if args, bad := d.decode(data); bad != nil || args.Service != "api" {
			b.Fatal(bad)
		}
	}
}
