package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

func FuzzDecodeTarget(f *testing.F) {
	formcheck.Fuzz[Target](f, Target{}.ElicitSchema(), `{"environment":"prod","notify":true}`, `{"environment":"moon"}`, `{}`)
}

func FuzzDecodeConfirmation(f *testing.F) {
	formcheck.Fuzz[Confirmation](f, Confirmation{}.ElicitSchema(), `{"confirm":true}`, `{"confirm":"yes"}`, `{}`)
}
