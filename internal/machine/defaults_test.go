package machine

import (
	"encoding/json"
	"testing"
)

// TestWithDefaults: the defaults go into their properties in place, the
// order of every key kept (a host shows the fields in it), an existing
// default replaced, a property of a type the spec allows no default on
// left alone, and the schema's own bytes never modified.
func TestWithDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string","title":"Z"},"a":{"type":"boolean","default":false,"title":"A"},"m":{"type":"array","items":{"type":"string","enum":["p","q"]}},"n":{"type":"integer"},"o":{"type":"object"}},"required":["z"]}`)
	orig := string(schema)
	got := withDefaults(schema, map[string]any{"z": "x<y", "a": true, "m": []any{"q"}, "n": 3.0, "o": map[string]any{}, "absent": 1})
	want := `{"type":"object","properties":{"z":{"type":"string","title":"Z","default":"x\u003cy"},"a":{"type":"boolean","default":true,"title":"A"},"m":{"type":"array","items":{"type":"string","enum":["p","q"]},"default":["q"]},"n":{"type":"integer","default":3},"o":{"type":"object"}},"required":["z"]}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if string(schema) != orig {
		t.Errorf("the schema's bytes changed: %s", schema)
	}
	for _, bad := range []any{json.RawMessage(`[1]`), json.RawMessage(`{"properties":5}`), map[string]any{"type": "object"}} {
		if got := withDefaults(bad, map[string]any{"z": "x"}); !jsonEqual(got, bad) {
			t.Errorf("withDefaults(%v) = %v, want it unchanged", bad, got)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
