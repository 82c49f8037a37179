package flows

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

// FuzzDecodeEverything fuzzes the decoder of the form of the hostile-answer
// table against the independent validator of runtime/elicittest/formcheck.
func FuzzDecodeEverything(f *testing.F) {
	formcheck.Fuzz[Everything](f, Everything{}.ElicitSchema(),
		`{"count":5,"favorite":"red"}`,
		`{"count":200,"favorite":"blue","big":-9007199254740991,"ratio":3.4e38,"picks":["red","green"],"day":"2024-02-29","at":"2026-01-01T00:00:00.5Z","site":"mailto:a@b.c","mail":"a@b.co","note":"hi","agree":true}`,
		`{"count":-0,"favorite":"red","picks":["red","red"]}`,
		`{"count":9007199254740993,"favorite":"red","at":"2026-01-01T00:00:00"}`)
}

func FuzzDecodeColors(f *testing.F) {
	formcheck.Fuzz[Colors](f, Colors{}.ElicitSchema(), `{"favorite":"red","also":["blue"]}`, `{"also":"red"}`, `{}`)
}

func FuzzDecodeRating(f *testing.F) {
	formcheck.Fuzz[Rating](f, Rating{}.ElicitSchema(), `{"stars":3}`, `{"stars":5.5}`, `{"stars":"4"}`)
}

func FuzzDecodeName(f *testing.F) {
	formcheck.Fuzz[Name](f, Name{}.ElicitSchema(), `{"name":"Ada","email":"ada@example.com"}`, `{"name":""}`, `{"email":"x"}`)
}
