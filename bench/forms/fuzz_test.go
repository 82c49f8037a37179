package forms

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

func FuzzDecodeFive(f *testing.F) {
	formcheck.Fuzz[Five](f, Five{}.ElicitSchema(), `{"name":"Ada","age":36,"score":99.5,"comment":"hi"}`, `{"name":"","age":-1}`, `{}`)
}

func FuzzDecodeTwelve(f *testing.F) {
	formcheck.Fuzz[Twelve](f, Twelve{}.ElicitSchema(),
		`{"title":"t","email":"a@b.co","priority":"high","labels":["bug"],"due":"2026-01-31","start":"2026-01-01T10:00:00Z","homepage":"https://x.y","count":3,"budget":0.5}`,
		`{"title":"","email":"a","labels":[]}`, `{}`)
}
