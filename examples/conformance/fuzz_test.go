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

func FuzzDecodeDeleteConfirmation(f *testing.F) {
	formcheck.Fuzz[DeleteConfirmation](f, DeleteConfirmation{}.ElicitSchema(), `{"confirm":true}`, `{"confirm":"yes"}`, `{}`)
}

func FuzzDecodeTaskName(f *testing.F) {
	formcheck.Fuzz[TaskName](f, TaskName{}.ElicitSchema(), `{"name":"partial-1","confirm":true}`, `{"name":false}`)
}

func FuzzDecodeTaskConfirmation(f *testing.F) {
	formcheck.Fuzz[TaskConfirmation](f, TaskConfirmation{}.ElicitSchema(), `{"name":"partial-2","confirm":true}`, `{"confirm":null}`)
}
