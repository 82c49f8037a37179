package bench

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/bench/baseline"
	"github.com/elicitgen/elicitgen/examples/flows"
	"github.com/elicitgen/elicitgen/examples/forms"
)

// Accepted content of the example forms, as the SDK hands it over, every
// property present. (examples/deploy and examples/conformance are package
// main: their forms are benchmarked there, in bench_test.go.)
var (
	deployContent  = map[string]any{"environment": "staging", "notify": true}
	profileContent = map[string]any{
		"name": "Ada Lovelace", "email": "ada@example.com", "site": "https://example.com/ada", "age": 36.0,
		"height": 1.65, "ratio": 0.5, "favorite": "blue", "palette": []any{"red", "green"},
		"tags": []any{"go", "mcp"}, "stages": []any{"dev", "prod"}, "birthday": "1815-12-10",
		"meet_at": "2026-07-28T09:30:00Z", "size": "l", "subscribe": true,
	}
	colorsContent = map[string]any{"favorite": "blue", "also": []any{"red", "green"}}
	ratingContent = map[string]any{"stars": 4.0}
	nameContent   = map[string]any{"name": "Ada", "email": "ada@example.com"}
	everyContent  = map[string]any{
		"count": 42.0, "big": 1234567.0, "ratio": 0.25, "favorite": "red", "picks": []any{"green", "blue"},
		"day": "2026-08-01", "at": "2026-07-28T09:30:00Z", "site": "https://example.com/ada",
		"mail": "ada@example.com", "note": "Bring the benchmarks.", "agree": true,
	}
)

// profileJSON is what encoding/json can fill from Profile's content: its
// property names, and the date as a string (time.Time unmarshals only from
// RFC 3339 date-times).
type profileJSON struct {
	Name      string              `json:"name"`
	Email     string              `json:"email"`
	Site      *string             `json:"site"`
	Age       uint8               `json:"age"`
	Height    float64             `json:"height"`
	Ratio     *float32            `json:"ratio"`
	Favorite  forms.Color         `json:"favorite"`
	Palette   []forms.Color       `json:"palette"`
	Tags      []string            `json:"tags"`
	Stage     []forms.Environment `json:"stages"`
	Birthday  string              `json:"birthday"`
	MeetAt    *time.Time          `json:"meet_at"`
	Size      string              `json:"size"`
	Subscribe bool                `json:"subscribe"`
}

func BenchmarkDecode(b *testing.B) {
	b.Run("forms.DeployForm", func(b *testing.B) {
		baseline.BenchDecode[forms.DeployForm, *forms.DeployForm, forms.DeployForm](b, forms.DeployForm{}.ElicitSchema(), deployContent)
	})
	b.Run("forms.Profile", func(b *testing.B) {
		baseline.BenchDecode[forms.Profile, *forms.Profile, profileJSON](b, forms.Profile{}.ElicitSchema(), profileContent)
	})
	b.Run("flows.Colors", func(b *testing.B) {
		baseline.BenchDecode[flows.Colors, *flows.Colors, flows.Colors](b, flows.Colors{}.ElicitSchema(), colorsContent)
	})
	b.Run("flows.Rating", func(b *testing.B) {
		baseline.BenchDecode[flows.Rating, *flows.Rating, flows.Rating](b, flows.Rating{}.ElicitSchema(), ratingContent)
	})
	b.Run("flows.Name", func(b *testing.B) {
		baseline.BenchDecode[flows.Name, *flows.Name, flows.Name](b, flows.Name{}.ElicitSchema(), nameContent)
	})
	b.Run("flows.Everything", func(b *testing.B) {
		baseline.BenchDecode[flows.Everything, *flows.Everything, flows.Everything](b, flows.Everything{}.ElicitSchema(), everyContent)
	})
}

func BenchmarkSchema(b *testing.B) {
	b.Run("forms.DeployForm", baseline.BenchSchema[forms.DeployForm])
	b.Run("forms.Profile", baseline.BenchSchema[forms.Profile])
}

// TestExampleContents keeps the benchmarks honest: both decoders accept the
// content they are measured on, and agree on it.
func TestExampleContents(t *testing.T) {
	var d forms.DeployForm
	if dj := baseline.DecodeBoth[forms.DeployForm, *forms.DeployForm, forms.DeployForm](t, &d, deployContent); d != dj {
		t.Errorf("DeployForm: generated %+v, jsonschema-go %+v", d, dj)
	}
	var p forms.Profile
	pj := baseline.DecodeBoth[forms.Profile, *forms.Profile, profileJSON](t, &p, profileContent)
	if p.Name != pj.Name || !slices.Equal(p.Palette, pj.Palette) || !p.MeetAt.Equal(*pj.MeetAt) || p.Birthday.Format(time.DateOnly) != pj.Birthday {
		t.Errorf("Profile: generated %+v, jsonschema-go %+v", p, pj)
	}
	var c flows.Colors
	if cj := baseline.DecodeBoth[flows.Colors, *flows.Colors, flows.Colors](t, &c, colorsContent); !reflect.DeepEqual(c, cj) {
		t.Errorf("Colors: generated %+v, jsonschema-go %+v", c, cj)
	}
	var r flows.Rating
	if rj := baseline.DecodeBoth[flows.Rating, *flows.Rating, flows.Rating](t, &r, ratingContent); r != rj {
		t.Errorf("Rating: generated %+v, jsonschema-go %+v", r, rj)
	}
	var n flows.Name
	if nj := baseline.DecodeBoth[flows.Name, *flows.Name, flows.Name](t, &n, nameContent); n != nj {
		t.Errorf("Name: generated %+v, jsonschema-go %+v", n, nj)
	}
	var e flows.Everything
	if ej := baseline.DecodeBoth[flows.Everything, *flows.Everything, flows.Everything](t, &e, everyContent); !reflect.DeepEqual(e, ej) || e.Note == nil || len(e.Picks) != 2 {
		t.Errorf("Everything: generated %+v, jsonschema-go %+v", e, ej)
	}
}
