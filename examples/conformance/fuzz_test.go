package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/internal/formcheck"
)

func FuzzDecodeUserName(f *testing.F) {
	formcheck.Fuzz[UserName](f, UserName{}.ElicitSchema(), `{"name":"Alice"}`, `{"name":1}`, `{}`)
}

func FuzzDecodeFavoriteColor(f *testing.F) {
	formcheck.Fuzz[FavoriteColor](f, FavoriteColor{}.ElicitSchema(), `{"color":"blue"}`, `{"color":null}`)
}

func FuzzDecodeConfirm(f *testing.F) {
	formcheck.Fuzz[Confirm](f, Confirm{}.ElicitSchema(), `{"ok":true}`, `{"ok":1}`)
}
