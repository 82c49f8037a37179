package machine

import (
	"encoding/json"
	"errors"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestArgWords: each schema keyword a form's property can carry is worded
// as the form decoders word it; a keyword the words do not know falls
// back to the library's text; a prefilled property gets its form's words.
func TestArgWords(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","minLength":2,"maxLength":4},
		"email":{"type":"string","format":"email"},
		"code":{"type":"string","pattern":"^[a-z]+$"},
		"when":{"type":"string","format":"date"},
		"ratio":{"type":"number","exclusiveMinimum":0},
		"n":{"type":"integer","minimum":1},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"maxItems":1},
		"mode":{"type":"string","enum":["x","y"]},
		"odd":{"type":"integer","multipleOf":2},
		"env":{"type":"string"}
	},"additionalProperties":false}`)
	steps := []Step{{Key: "f", Prefill: []string{"env"}, Check: func(c map[string]any) error {
		if c["env"] != "dev" {
			return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "env", Reason: "must be one of dev"}}}
		}
		return nil
	}}}
	w := newArgWords(schema, &Machine{steps: steps})
	if w == nil {
		t.Fatal("no words")
	}
	lib := errors.New("validating root: the library's text")
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "x"}, "name: must have 2 to 4 characters"},
		{map[string]any{"email": "nope"}, "email: must be an email address"},
		{map[string]any{"code": "A1"}, "code: must match the pattern ^[a-z]+$"},
		{map[string]any{"when": "2026-13-01"}, "when: must be a calendar date (YYYY-MM-DD)"},
		{map[string]any{"ratio": 0.0}, "ratio: must be more than 0"},
		{map[string]any{"n": 0.0}, "n: must be at least 1"},
		{map[string]any{"tags": []any{"c"}}, "tags: items must be among a, b"},
		{map[string]any{"tags": []any{"a", "b"}}, "tags: must have at most 1 item"},
		{map[string]any{"mode": "z"}, "mode: must be one of x, y"},
		{map[string]any{"env": "prod"}, "env: must be one of dev"},
		{map[string]any{"odd": 3.0}, "the library's text"},
		{map[string]any{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}, "a: is not an argument of this tool (it takes name, email, code, when, ratio, n, tags, mode, odd, env); " +
			"b: is not an argument of this tool (it takes name, email, code, when, ratio, n, tags, mode, odd, env); " +
			"c: is not an argument of this tool (it takes name, email, code, when, ratio, n, tags, mode, odd, env); and 2 more: are not arguments of this tool"},
	} {
		if got := w.explain(c.args, lib); got != "invalid arguments: "+c.want {
			t.Errorf("%v:\ngot  %s\nwant invalid arguments: %s", c.args, got, c.want)
		}
	}
}
