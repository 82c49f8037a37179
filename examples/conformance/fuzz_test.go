package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
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

func FuzzDecodeUserInfo(f *testing.F) {
	formcheck.Fuzz[UserInfo](f, UserInfo{}.ElicitSchema(), `{"username":"alice","email":"alice@example.com"}`, `{"username":"alice"}`, `{"username":1,"email":null}`)
}

func FuzzDecodeDefaults(f *testing.F) {
	formcheck.Fuzz[Defaults](f, Defaults{}.ElicitSchema(), `{}`, `{"name":"Ada","age":31,"score":99.5,"status":"pending","verified":false}`,
		`{"age":30.5}`, `{"status":"retired"}`, `{"verified":"true"}`)
}

func FuzzDecodeEnums(f *testing.F) {
	formcheck.Fuzz[Enums](f, Enums{}.ElicitSchema(), `{}`,
		`{"untitledSingle":"option1","titledSingle":"value2","legacyEnum":"opt3","untitledMulti":["option1","option3"],"titledMulti":["value1"]}`,
		`{"untitledSingle":"value1"}`, `{"untitledMulti":"option1"}`, `{"titledMulti":["value1","value1"]}`)
}

func FuzzDecodePromptContext(f *testing.F) {
	formcheck.Fuzz[PromptContext](f, PromptContext{}.ElicitSchema(), `{"context":"the notes"}`, `{"context":""}`, `{}`, `{"context":7}`)
}
