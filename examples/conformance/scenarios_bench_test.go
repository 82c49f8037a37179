package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/bench/baseline"
)

// Accepted content of the scenario forms, as the SDK hands it over.
var (
	userInfoContent = map[string]any{"username": "testuser", "email": "test@example.com"}
	defaultsContent = map[string]any{"name": "Jane Smith", "age": float64(25), "score": float64(88), "status": "inactive", "verified": false}
	contextContent  = map[string]any{"context": "test context"}
	enumsContent    = map[string]any{"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
		"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}}
)

// BenchmarkDecodeScenarios measures the scenario forms' decoders against
// the jsonschema-go baseline.
func BenchmarkDecodeScenarios(b *testing.B) {
	b.Run("conformance.UserInfo", func(b *testing.B) {
		baseline.BenchDecode[UserInfo, *UserInfo, UserInfo](b, UserInfo{}.ElicitSchema(), userInfoContent)
	})
	b.Run("conformance.Defaults", func(b *testing.B) {
		baseline.BenchDecode[Defaults, *Defaults, Defaults](b, Defaults{}.ElicitSchema(), defaultsContent)
	})
	b.Run("conformance.PromptContext", func(b *testing.B) {
		baseline.BenchDecode[PromptContext, *PromptContext, PromptContext](b, PromptContext{}.ElicitSchema(), contextContent)
	})
	b.Run("conformance.Enums", func(b *testing.B) {
		baseline.BenchDecode[Enums, *Enums, Enums](b, Enums{}.ElicitSchema(), enumsContent)
	})
}
