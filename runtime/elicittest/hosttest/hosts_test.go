package hosttest

import (
	"testing"

	"github.com/elicitgen/elicitgen/internal/hostmatrix"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCodexShows: a host that shows string, enum and boolean fields
// only names the integer and multi-select fields of a form it shows as
// approve or decline, and approving it sends no field.
func TestCodexShows(t *testing.T) {
	var codex Host
	for _, h := range Hosts {
		if h.Name == "Codex" {
			codex = h
		}
	}
	form := &mcp.ElicitParams{Message: "Rate it", Mode: "form", RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"stars": map[string]any{"type": "integer"},
			"also":  map[string]any{"type": "array", "items": map[string]any{"enum": []any{"red"}}},
			"name":  map[string]any{"type": "string"},
			"color": map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "red"}}},
			"ok":    map[string]any{"type": "boolean"},
		},
	}}
	if got, want := codex.Shows(form), "approve or decline only, no field for `also` (multi-select), `stars` (integer): Rate it (approved)"; got != want {
		t.Errorf("Shows = %q, want %q", got, want)
	}
	person := func(*mcp.ElicitParams) *mcp.ElicitResult { return Accept(map[string]any{"stars": 4}) }
	if res := codex.Options(person).User.Answer(form); res.Action != "accept" || res.Content != nil {
		t.Errorf("approved form sent %+v, want accept without content", res)
	}
	text := &mcp.ElicitParams{Message: "Name?", Mode: "form", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "ok": map[string]any{"type": "boolean"}},
	}}
	if got := codex.Shows(text); got != "form: Name?" {
		t.Errorf("Shows = %q, want the form", got)
	}
	if res := codex.Options(person).User.Answer(text); res.Content["stars"] != 4 {
		t.Errorf("a form Codex shows is not answered by the person: %+v", res)
	}
}

// TestEveryHostEmulated: each host of hostmatrix.Hosts is emulated, on
// each of its eras, or NotEmulated says why; and what the emulation adds
// (emulations, NotEmulated) names hosts of the table, so a renamed host
// cannot silently lose its transports or its capabilities JSON.
func TestEveryHostEmulated(t *testing.T) {
	emulated := map[string]Host{}
	for _, h := range Hosts {
		emulated[h.Name] = h
	}
	known := map[string]bool{}
	for _, row := range hostmatrix.Hosts {
		known[row.Name] = true
		h, ok := emulated[row.Name]
		switch why, skipped := NotEmulated[row.Name]; {
		case skipped && why == "":
			t.Errorf("%s is not emulated and NotEmulated gives no reason", row.Name)
		case !skipped && !ok:
			t.Errorf("%s is not emulated and not in NotEmulated", row.Name)
		case ok && len(h.Sessions) != len(row.Eras):
			t.Errorf("%s is emulated on %d eras, the table has %d", row.Name, len(h.Sessions), len(row.Eras))
		}
		for i, s := range h.Sessions {
			if EraName(s.Era) != row.Eras[i] || len(s.Transports) == 0 {
				t.Errorf("%s: session %d is %+v, the table's era is %s", row.Name, i, s, row.Eras[i])
			}
		}
	}
	for name := range emulations {
		if !known[name] {
			t.Errorf("emulations names %q, which hostmatrix.Hosts does not have", name)
		}
	}
	for name := range NotEmulated {
		if !known[name] {
			t.Errorf("NotEmulated names %q, which hostmatrix.Hosts does not have", name)
		}
	}
}
