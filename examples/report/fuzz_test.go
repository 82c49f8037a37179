package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

func FuzzDecodeFormatChoice(f *testing.F) {
	formcheck.Fuzz[FormatChoice](f, FormatChoice{}.ElicitSchema(), `{"format":"markdown"}`, `{"format":"pdf"}`, `{}`)
}

func FuzzDecodeSalariesChoice(f *testing.F) {
	formcheck.Fuzz[SalariesChoice](f, SalariesChoice{}.ElicitSchema(), `{"include":true}`, `{"include":"yes"}`, `{"include":null}`)
}
