package machine

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capsText are _meta client capabilities as clients could send them, each
// the JSON text of the value of "io.modelcontextprotocol/clientCapabilities";
// direct says whether metaElicitation must answer it itself (the common
// shapes), so that the lever cannot quietly stop applying.
var capsText = []struct {
	json   string
	direct bool
}{
	{`{"elicitation":{"form":{}}}`, true},
	{`{"elicitation":{}}`, true},
	{`{"elicitation":{"url":{}}}`, true},
	{`{"elicitation":{"form":{},"url":{}}}`, true},
	{`{"elicitation":{"form":null}}`, true},
	{`{"elicitation":{"form":null,"url":null}}`, true},
	{`{"elicitation":{"url":null}}`, true},
	{`{"elicitation":{"form":{"x":[1,2,{"y":null}]},"url":{"z":1}}}`, true},
	{`{"elicitation":{"other":5,"form":{}}}`, true},
	{`{"elicitation":null}`, true},
	{`{}`, true},
	{`{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},"elicitation":{"form":{}},"experimental":{"a":1},"extensions":{"io.modelcontextprotocol/tasks":{}}}`, true},
	{`{"roots":{},"sampling":{},"elicitation":{"url":{}}}`, true},
	{`{"roots":null,"sampling":null,"experimental":null,"extensions":null,"elicitation":{"form":{}}}`, true},
	{`{"roots":{"listChanged":null},"elicitation":{}}`, true},
	{`{"extensions":{"a":5,"b":"x","c":[1]},"elicitation":{}}`, true},
	{`{"tasks":{"requests":{}},"elicitation":{"form":{}}}`, true},
	// Other letter cases and look-alikes are other members to the SDK.
	{`{"Elicitation":{"form":{}}}`, true},
	{`{"ELICITATION":{}}`, true},
	{`{"elicitation":{"Form":{},"URL":{}}}`, true},
	{`{"elicitation":{"Url":{}}}`, true},
	{`{"Roots":5,"elicitation":{}}`, true},
	{`{"rootſ":5,"elicitation":{}}`, true},
	{`{"Sampling":"x","elicitation":{"url":{}}}`, true},
	{`{"elicitation":{"form":{}},"Elicitation":null}`, true},
	// Shapes the SDK's decode refuses: the SDK answers.
	{`{"elicitation":true}`, false},
	{`{"elicitation":"form"}`, false},
	{`{"elicitation":[]}`, false},
	{`{"elicitation":[{"form":{}}]}`, false},
	{`{"elicitation":5}`, false},
	{`{"elicitation":{"form":true}}`, false},
	{`{"elicitation":{"form":"yes"}}`, false},
	{`{"elicitation":{"form":[]}}`, false},
	{`{"elicitation":{"url":1}}`, false},
	{`{"elicitation":{"url":false}}`, false},
	{`{"roots":5,"elicitation":{"form":{}}}`, false},
	{`{"roots":{"listChanged":"yes"},"elicitation":{"form":{}}}`, false},
	{`{"roots":{"listChanged":{}},"elicitation":{}}`, false},
	{`{"roots":[],"elicitation":{}}`, false},
	{`{"sampling":{"tools":true},"elicitation":{"form":{}}}`, false},
	{`{"sampling":{"context":"x"},"elicitation":{}}`, false},
	{`{"sampling":1,"elicitation":{}}`, false},
	{`{"experimental":[],"elicitation":{"form":{}}}`, false},
	{`{"experimental":"x","elicitation":{}}`, false},
	{`{"extensions":true,"elicitation":{"form":{}}}`, false},
	// Not an object, or absent: the SDK answers (from the session).
	{`null`, false},
	{`[]`, false},
	{`[{"elicitation":{}}]`, false},
	{`"elicitation"`, false},
	{`5`, false},
	{`true`, false},
}

// metaOf is a _meta holding caps as client capabilities (none when caps is
// the absent marker).
func metaOf(caps any) map[string]any {
	meta := map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28"}
	if caps != absent {
		meta[mcp.MetaKeyClientCapabilities] = caps
	}
	return meta
}

type absentMarker struct{}

var absent = absentMarker{}

// sdkElicitation is the SDK's reading of caps: decoded is false when it
// fell back to the session (there is none: nil capabilities).
func sdkElicitation(caps any) (e *mcp.ElicitationCapabilities, decoded bool) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: metaOf(caps)}}
	c := req.ClientCapabilities()
	if c == nil {
		return nil, false
	}
	return c.Elicitation, true
}

// sameElicitation reports whether two capabilities declare the same modes.
func sameElicitation(a, b *mcp.ElicitationCapabilities) bool {
	if a == nil || b == nil {
		return a == b
	}
	return (a.Form == nil) == (b.Form == nil) && (a.URL == nil) == (b.URL == nil)
}

// checkMetaElicitation compares metaElicitation and canShow with the SDK's
// reading of caps, and returns whether metaElicitation answered itself.
func checkMetaElicitation(t *testing.T, name string, caps any) bool {
	t.Helper()
	want, decoded := sdkElicitation(caps)
	got, ok := metaElicitation(metaOf(caps))
	if ok && (!decoded || !sameElicitation(got, want)) {
		t.Errorf("%s: read %+v from _meta; the SDK reads %+v (decoded %v)", name, got, want, decoded)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: metaOf(caps)}}
	view := toolView(req)
	for _, mode := range []Mode{ModeForm, ModeURL} {
		sdk := want != nil && (mode == ModeURL && want.URL != nil || mode != ModeURL && (want.Form != nil || want.URL == nil))
		if canShow(view, mode) != sdk {
			t.Errorf("%s: canShow(%v) = %v, the SDK's capabilities say %v", name, mode, !sdk, sdk)
		}
	}
	return ok
}

// TestMetaElicitationMatchesSDK: the elicitation modes read from _meta
// directly are the SDK's, for every shape of decoded JSON capabilities,
// and the direct read answers the common shapes itself.
func TestMetaElicitationMatchesSDK(t *testing.T) {
	for _, c := range capsText {
		var caps any
		if err := json.Unmarshal([]byte(c.json), &caps); err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		if ok := checkMetaElicitation(t, c.json, caps); ok != c.direct {
			t.Errorf("%s: read from _meta directly: %v, want %v", c.json, ok, c.direct)
		}
	}
}

// TestMetaElicitationInProcess: values a server builds in process (typed
// capabilities, Go types JSON does not decode to, numbers JSON cannot
// carry, deep nesting) are left to the SDK, which gives the same answer.
func TestMetaElicitationInProcess(t *testing.T) {
	deep := any(map[string]any{})
	for range 1100 {
		deep = map[string]any{"d": deep}
	}
	cases := map[string]any{
		"absent":                absent,
		"nil":                   nil,
		"typed":                 &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		"typed elicitation":     map[string]any{"elicitation": &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		"typed map":             map[string]map[string]any{"elicitation": {"url": map[string]any{}}},
		"int":                   map[string]any{"experimental": map[string]any{"n": 1}, "elicitation": map[string]any{"url": map[string]any{}}},
		"NaN":                   map[string]any{"experimental": map[string]any{"n": math.NaN()}, "elicitation": map[string]any{"url": map[string]any{}}},
		"Inf":                   map[string]any{"x": math.Inf(1), "elicitation": map[string]any{"form": map[string]any{}}},
		"func":                  map[string]any{"x": func() {}, "elicitation": map[string]any{"form": map[string]any{}}},
		"deep":                  map[string]any{"x": deep, "elicitation": map[string]any{"form": map[string]any{}}},
		"json.Number":           map[string]any{"x": json.Number("1"), "elicitation": map[string]any{}},
		"raw message":           map[string]any{"elicitation": json.RawMessage(`{"url":{}}`)},
		"strings":               map[string]any{"elicitation": map[string]string{}},
		"[]string":              map[string]any{"x": []string{"a"}, "elicitation": map[string]any{}},
		"invalid UTF-8 in keys": map[string]any{"\xff": "\xfe", "elicitation": map[string]any{"url": map[string]any{}}},
	}
	for name, caps := range cases {
		if checkMetaElicitation(t, name, caps) && name != "invalid UTF-8 in keys" {
			t.Errorf("%s: read from _meta directly, want the SDK's reading", name)
		}
	}
	if !checkMetaElicitation(t, "long s", map[string]any{"rootſ": 5.0, "elicitation": map[string]any{}}) {
		t.Error("long s: not read directly")
	}
}

// FuzzMetaElicitation: for any JSON text as the client capabilities, what
// metaElicitation reads is what the SDK reads.
func FuzzMetaElicitation(f *testing.F) {
	for _, c := range capsText {
		f.Add(c.json)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var caps any
		if json.Unmarshal([]byte(text), &caps) != nil {
			return
		}
		checkMetaElicitation(t, text, caps)
	})
}
