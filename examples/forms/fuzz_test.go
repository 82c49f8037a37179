package forms

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

// FuzzDecodeProfile decodes fuzzed JSON content with the generated decoder
// of the form with every property kind; runtime/elicittest/formcheck is the
// independent validator (the published schema through jsonschema-go, plus
// standard-library format checks).
func FuzzDecodeProfile(f *testing.F) {
	formcheck.Fuzz[Profile](f, Profile{}.ElicitSchema(),
		`{"name":"Ada","birthday":"1815-12-10","palette":["red"]}`,
		`{"name":"Ada","email":"ada@example.com","site":"https://example.com","age":36,"height":1.7,"ratio":0.5,"favorite":"blue","palette":["red","green"],"tags":["go"],"stages":["dev","prod"],"birthday":"2000-02-29","meet_at":"2026-11-29T10:00:00+01:00","size":"l","subscribe":true}`,
		`{"name":"","age":12,"height":3,"palette":[],"birthday":"2026-02-30"}`,
		`{"name":"x","age":255.5,"ratio":1e39,"meet_at":"2026-11-29T10:00:00"}`,
		`{"name":null}`, `[]`, `{}`)
}

// FuzzDecodeDeployForm does the same for the titled-enum deploy form.
func FuzzDecodeDeployForm(f *testing.F) {
	formcheck.Fuzz[DeployForm](f, DeployForm{}.ElicitSchema(),
		`{"environment":"prod","notify":true}`, `{"environment":"moon"}`, `{"notify":1}`, `{}`)
}
