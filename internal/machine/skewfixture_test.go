package machine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The skew fixture: two releases of one server, written by hand as
// generated code would write them, whose tools of the same names differ
// in the ways a deploy changes a tool (steps reordered, replaced, a field
// renamed, an enum value removed, a message reworded, a step inserted or
// removed), or only in what no person sees (a handler's preview wording).
// Each step's Digest covers what the person is shown and what the answer
// means (its message, its form, its confirmation), as the generator's
// does. Every tool's Complete answers "RELEASE TOOL complete ANSWERS",
// the answers it received as JSON in step order (a step not answered is
// null), so a test reads back exactly what reached the handler.

// skewForm is a form of one required property: a boolean, a string, or
// one of enum.
type skewForm struct {
	prop string
	kind string // "boolean" or "string"
	enum []string
}

var (
	skewYesNo       = skewForm{prop: "yes", kind: "boolean"}
	skewOK          = skewForm{prop: "confirm", kind: "boolean"}
	skewEnv         = skewForm{prop: "env", kind: "string"}
	skewEnvironment = skewForm{prop: "environment", kind: "string"}
)

func skewRegion(values ...string) skewForm {
	return skewForm{prop: "region", kind: "string", enum: values}
}

func (f skewForm) schema() json.RawMessage {
	p := map[string]any{"type": f.kind, "title": skewTitle(f.prop)}
	if f.enum != nil {
		p["enum"] = f.enum
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{f.prop: p}, "required": []string{f.prop}})
	return b
}

// check is the form's strict decoder.
func (f skewForm) check(c map[string]any) error {
	reason := ""
	switch v, ok := c[f.prop]; {
	case !ok:
		reason = elicitimpl.ReasonRequired
	case f.kind == "boolean":
		if _, ok := v.(bool); !ok {
			reason = elicitimpl.ReasonBoolean
		}
	default:
		if s, ok := v.(string); !ok {
			reason = elicitimpl.ReasonString
		} else if f.enum != nil && !slices.Contains(f.enum, s) {
			reason = "must be one of " + strings.Join(f.enum, ", ")
		}
	}
	if reason != "" {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: f.prop, Reason: reason}}}
	}
	return nil
}

func skewTitle(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// skewStep is one step of a tool: key, message, form; confirm makes it a
// confirmation of the form's boolean; preview (with once) lets a client
// that cannot ask confirm it with a token; prefill answers it from the
// arguments.
type skewStep struct {
	key, message     string
	form             skewForm
	confirm, preview bool
	prefill          bool
}

func (s skewStep) step() elicitimpl.Step {
	schema := s.form.schema()
	st := elicitimpl.Step{
		Key: s.key, Message: s.message, Mode: elicitimpl.ModeForm, Fallback: elicitimpl.FallbackError,
		Missing: s.form.prop + " is required", Check: s.form.check,
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		},
	}
	if s.confirm {
		st.Confirm = s.form.prop
	}
	if s.preview {
		st.Once, st.Fallback, st.Accept = true, elicitimpl.FallbackPreview, map[string]any{s.form.prop: true}
	}
	if s.prefill {
		st.Prefill, st.PrefillNeeds, st.Fallback = []string{s.form.prop}, []string{s.form.prop}, elicitimpl.FallbackArguments
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%q %s confirm=%q once=%v", s.message, schema, st.Confirm, st.Once))
	st.Digest = hex.EncodeToString(h[:16])
	return st
}

// skewTool is one tool of a release; preview is its handler's preview
// text, for a tool with a preview step.
type skewTool struct {
	name    string
	steps   []skewStep
	preview string
}

var (
	skewTarget = skewStep{key: "target", message: "Which environment?", form: skewEnv}
	skewGoOn   = skewStep{key: "ok", message: "Go ahead?", form: skewOK, confirm: true}
	skewFirst  = skewStep{key: "first", message: "First?", form: skewYesNo}
	skewSecond = skewStep{key: "second", message: "Second?", form: skewYesNo}
	skewPurge  = skewStep{key: "purge", message: "Purge the whole database?", form: skewYesNo}
	skewArch   = skewStep{key: "archive", message: "Archive the old logs?", form: skewYesNo}
	skewScope  = skewStep{key: "scope", message: "Which environment?", form: skewEnv}
	skewSame   = []skewStep{{key: "target", message: "Which environment?", form: skewEnv, prefill: true},
		{key: "ok", message: "Go ahead?", form: skewOK, confirm: true, preview: true}}
)

// skewReleases are the tools of releases v1 and v2.
var skewReleases = map[string][]skewTool{
	"v1": {
		{name: "cleanup", steps: []skewStep{skewPurge, skewArch}},
		{name: "scope", steps: []skewStep{skewScope, skewGoOn}},
		{name: "notify", steps: []skewStep{skewTarget, {key: "notify", message: "Post in #deployments?", form: skewYesNo}}},
		{name: "rename", steps: []skewStep{skewTarget, skewGoOn}},
		{name: "place", steps: []skewStep{{key: "region", message: "Which region?", form: skewRegion("eu", "us", "asia")}, skewGoOn}},
		{name: "drop", steps: []skewStep{{key: "ok", message: "Delete 3 rows?", form: skewOK, confirm: true}}},
		{name: "grow", steps: []skewStep{skewFirst}},
		{name: "shrink", steps: []skewStep{skewFirst, skewSecond}},
		{name: "same", steps: skewSame, preview: "v1 would go ahead"},
		{name: "launch", steps: []skewStep{{key: "ok", message: "Launch the rocket?", form: skewOK, confirm: true, preview: true}},
			preview: "v1 would launch the rocket"},
	},
	"v2": {
		{name: "cleanup", steps: []skewStep{skewArch, skewPurge}},
		{name: "scope", steps: []skewStep{skewGoOn, skewScope}},
		{name: "notify", steps: []skewStep{skewTarget, {key: "approval", message: "Approve the change?", form: skewOK, confirm: true}}},
		{name: "rename", steps: []skewStep{{key: "target", message: "Which environment?", form: skewEnvironment}, skewGoOn}},
		{name: "place", steps: []skewStep{{key: "region", message: "Which region?", form: skewRegion("eu", "us")}, skewGoOn}},
		{name: "drop", steps: []skewStep{{key: "ok", message: "Delete the table?", form: skewOK, confirm: true}}},
		{name: "grow", steps: []skewStep{skewFirst, skewSecond}},
		{name: "shrink", steps: []skewStep{skewFirst}},
		{name: "same", steps: skewSame, preview: "v2 goes ahead once confirmed"},
		{name: "launch", steps: []skewStep{{key: "ok", message: "Launch all the rockets?", form: skewOK, confirm: true, preview: true}},
			preview: "v2 would launch all the rockets"},
	},
}

// skewArgs are every skew tool's arguments.
type skewArgs struct {
	Service string `json:"service,omitempty"`
}

// skewServer serves the tools of release, sealing and opening with opts.
func skewServer(release string, opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "upgrade", Version: "v0"}, nil)
	for _, tool := range skewReleases[release] {
		skewAdd(server, release, tool, opts)
	}
	return server
}

func skewAdd(server *mcp.Server, release string, tool skewTool, opts *elicitrt.ToolOptions) {
	steps := make([]elicitimpl.Step, len(tool.steps))
	prefill := map[string]any{}
	for i, s := range tool.steps {
		steps[i] = s.step()
		if s.prefill {
			prefill[s.form.prop] = map[string]any{"type": s.form.kind, "title": skewTitle(s.form.prop)}
		}
		if s.preview {
			prefill[elicitrt.PreviewTokenArgument] = map[string]any{"type": "string"}
		}
	}
	var extra json.RawMessage
	if len(prefill) > 0 {
		extra, _ = json.Marshal(prefill)
	}
	flow := elicitimpl.Flow{
		Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			b, err := skewAnswersJSON(tool.steps, a)
			if err != nil {
				return nil, err
			}
			return elicitrt.Text(release + " " + tool.name + " complete " + string(b)), nil
		},
		Ended: func(_ context.Context, _ *mcp.CallToolRequest, _ any, step int, action string, _ elicitimpl.Answers) (*mcp.CallToolResult, error) {
			verb := map[string]string{"decline": "declined", "cancel": "cancelled"}[action]
			return elicitrt.Text(release + " " + tool.name + " " + verb + " " + tool.steps[step].key), nil
		},
	}
	if tool.preview != "" {
		flow.Preview = func(context.Context, *mcp.CallToolRequest, any, int, elicitimpl.Answers) string { return tool.preview }
	}
	base, err := jsonschema.For[skewArgs](nil)
	m := elicitimpl.NewMachine(tool.name, steps, flow, opts)
	elicitimpl.AddTool[skewArgs](server, &mcp.Tool{Name: tool.name, InputSchema: elicitimpl.MustInputSchema(tool.name, base, err, extra)}, m)
}

// skewAnswersJSON writes the answers as the typed answers struct of
// generated code marshals: {"Key":{"Prop":value},...} in step order, a
// step not answered null.
func skewAnswersJSON(steps []skewStep, a elicitimpl.Answers) ([]byte, error) {
	if len(a) != len(steps) {
		return nil, errors.New("answers do not match the steps")
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		v := []byte("null")
		if a[i] != nil {
			var err error
			if v, err = json.Marshal(map[string]any{skewTitle(s.form.prop): a[i][s.form.prop]}); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(&b, "%q:%s", skewTitle(s.key), v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
