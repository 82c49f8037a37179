package elicittest

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type level string

// form is a form type as elicitgen reads one: names from the elicit tag,
// else the json tag, else the Go name.
type form struct {
	Environment level      `elicit:"environment,required"`
	Notes       string     `json:"release_notes"`
	Count       int        `elicit:",min=1" json:"count"`
	Day         time.Time  `elicit:"day,format=date"`
	At          time.Time  `elicit:"at,format=date-time"`
	Tags        []string   `elicit:"tags,enum=a|b"`
	Maybe       *int       `elicit:"maybe"`
	Skipped     string     `elicit:"-"`
	Hidden      string     `json:"-"`
	Plain       bool       //
	Optional    *time.Time `elicit:"optional,format=date"`
	unexported  string
}

// TestContentOfForm: a typed answer is sent under the generator's
// property names, with JSON's types, a date as a date, and a nil pointer
// left out.
func TestContentOfForm(t *testing.T) {
	day := time.Date(2026, 7, 28, 15, 4, 5, 0, time.UTC)
	got, err := contentOf(&form{Environment: "prod", Notes: "n", Count: 2, Day: day, At: day, Tags: []string{"a"}, Skipped: "x", Hidden: "y", unexported: "z"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"environment": "prod", "release_notes": "n", "count": 2.0, "day": "2026-07-28",
		"at": "2026-07-28T15:04:05Z", "tags": []any{"a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("contentOf = %#v\nwant %#v", got, want)
	}
}

// TestContentOfZeroValues: what a person leaves empty is left out (an
// optional zero, a nil slice); a required property and one with a default
// are sent even when zero, so false can answer a confirmation and
// override a default of true.
func TestContentOfZeroValues(t *testing.T) {
	type zeros struct {
		Confirm bool     `elicit:"confirm,required"`
		Notify  bool     `elicit:"notify,default=true"`
		Email   string   `elicit:"email,format=email"`
		Also    []string `elicit:"also,default="`
		Some    []string `elicit:"some,default="`
	}
	got, err := contentOf(zeros{Some: []string{}})
	want := map[string]any{"confirm": false, "notify": false, "some": []any{}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("contentOf = %#v, %v; want %#v", got, err, want)
	}
}

func TestContentOfRawAndInvalid(t *testing.T) {
	raw := map[string]any{"environment": 1.0}
	if got, err := contentOf(raw); err != nil || !reflect.DeepEqual(got, raw) {
		t.Errorf("raw: %v %v", got, err)
	}
	if got, err := contentOf(nil); err != nil || got != nil {
		t.Errorf("nil: %v %v", got, err)
	}
	if _, err := contentOf("prod"); err == nil {
		t.Error("a string is no form")
	}
}

func TestNewQuestion(t *testing.T) {
	q := newQuestion("target.2", formParams("Where?\n\nPlease correct: environment: required."))
	if q.Step != "target" || q.Message != "Where?" || q.Reason != "environment: required" {
		t.Errorf("question: %+v", q)
	}
	if got := q.Names(); !reflect.DeepEqual(got, []string{"environment", "notify"}) {
		t.Errorf("names, sorted: %q", got)
	}
	if p, _ := q.Property("notify"); p.Title != "Notify" || p.Default != false || p.Required || p.Type != "boolean" {
		t.Errorf("notify: %+v", p)
	}
	if p, _ := q.Property("environment"); !p.Required {
		t.Errorf("environment: %+v", p)
	}
}

func formParams(message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"environment":{"type":"string"},"notify":{"type":"boolean","title":"Notify","default":false}},"required":["environment"]}`)}
}
