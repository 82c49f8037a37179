package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"
)

// TestStubTestValues: the answers a generated test sends respect each
// property's schema: bounds, formats, enums, item counts, defaults.
func TestStubTestValues(t *testing.T) {
	p := &pkgModel{Path: "example.com/app", Name: "app"}
	levels := &enumModel{Values: []enumValue{{Value: "low"}, {Value: "high"}}}
	cases := []struct {
		f    fieldModel
		want string
	}{
		{fieldModel{Kind: kindString}, `"example"`},
		{fieldModel{Kind: kindString, Format: "email"}, `"person@example.com"`},
		{fieldModel{Kind: kindString, Format: "uri"}, `"https://example.com"`},
		{fieldModel{Kind: kindString, HasMin: true, MinInt: 10}, `"xxxxxxxxxx"`},
		{fieldModel{Kind: kindString, HasMax: true, MaxInt: 3}, `"xxx"`},
		{fieldModel{Kind: kindBool}, `true`},
		{fieldModel{Kind: kindInteger, MinInt: -5, MaxInt: 9}, `1`},
		{fieldModel{Kind: kindInteger, MinInt: 3, MaxInt: 9}, `3`},
		{fieldModel{Kind: kindInteger, MinInt: -9, MaxInt: -2}, `-2`},
		{fieldModel{Kind: kindNumber}, `1.0`},
		{fieldModel{Kind: kindNumber, HasMin: true, MinNum: 2.5}, `2.5`},
		{fieldModel{Kind: kindNumber, HasMax: true, MaxNum: 0.5}, `0.5`},
		{fieldModel{Kind: kindEnum, Enum: levels}, `"low"`},
		{fieldModel{Kind: kindMulti, Enum: levels, Value: types.NewSlice(types.Typ[types.String])}, `[]string{"low"}`},
		{fieldModel{Kind: kindMulti, Enum: levels, Value: types.NewSlice(types.Typ[types.String]), HasMin: true, MinInt: 2}, `[]string{"low", "high"}`},
		{fieldModel{Kind: kindTime}, `time.Date(2026, time.January, 2, 0, 0, 0, 0, time.UTC)`},
	}
	for _, c := range cases {
		if got := fmt.Sprintf("%#v", validValue(p, &c.f)); got != c.want {
			t.Errorf("validValue(%+v) = %s, want %s", c.f, got, c.want)
		}
	}
	defaults := []struct {
		f    fieldModel
		want string
	}{
		{fieldModel{Kind: kindString, Default: &propDefault{String: "hi"}}, `"hi"`},
		{fieldModel{Kind: kindInteger, Default: &propDefault{Int: 7}}, `7`},
		{fieldModel{Kind: kindBool, Default: &propDefault{Bool: false}}, `false`},
		{fieldModel{Kind: kindEnum, Enum: levels, Default: &propDefault{String: "high"}}, `"high"`},
		{fieldModel{Kind: kindTime, Default: &propDefault{Time: time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)}}, `time.Date(2025, time.March, 4, 0, 0, 0, 0, time.UTC)`},
		{fieldModel{Kind: kindString}, `<nil>`},
	}
	for _, c := range defaults {
		got := fmt.Sprint(defaultValue(p, &c.f))
		if v := defaultValue(p, &c.f); v != nil {
			got = fmt.Sprintf("%#v", v)
		}
		if got != c.want {
			t.Errorf("defaultValue(%+v) = %s, want %s", c.f, got, c.want)
		}
	}
}

// TestStubTestForm: a form's answer sets its defaults, its required
// properties and a confirmation's boolean (true), and leaves out the
// rest, pointers included.
func TestStubTestForm(t *testing.T) {
	p := &pkgModel{Path: "example.com/app", Name: "app"}
	s := &stepModel{Confirm: "ok", Form: &formModel{Name: "Form", Fields: []*fieldModel{
		{GoName: "Name", Kind: kindString, Required: true},
		{GoName: "Note", Kind: kindString},
		{GoName: "Count", Kind: kindInteger, MinInt: 0, MaxInt: 9, Default: &propDefault{Int: 4}},
		{GoName: "Maybe", Kind: kindInteger, Pointer: true, Required: true},
		{GoName: "OK", Property: "ok", Kind: kindBool},
	}}}
	want := `Form{Name: "example", Count: 4, OK: true}`
	if got := fmt.Sprintf("%#v", formValue(p, s).(*jen.Statement)); got != want {
		t.Errorf("formValue = %s, want %s", got, want)
	}
}

// TestStubTestHandler: the test registers the one struct type with every
// method of the handler (a pointer when its methods are), else the type
// the stub writes.
func TestStubTestHandler(t *testing.T) {
	check := func(src, want string) {
		t.Helper()
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "app.go", "package app\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		pkg, err := new(types.Config).Check("example.com/app", fset, []*ast.File{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tool := &toolModel{Name: "AskTool", Methods: []handlerMethod{{Name: "Complete"}, {Name: "Declined"}}}
		if got := fmt.Sprintf("%#v", handlerValue(&pkgModel{Path: "example.com/app", types: pkg}, tool)); got != want {
			t.Errorf("handlerValue of\n%s= %s, want %s", src, got, want)
		}
	}
	check("type levels struct{}\nfunc (*levels) Complete() {}\nfunc (*levels) Declined() {}\ntype half struct{}\nfunc (half) Complete() {}\n", "&levels{}")
	check("type levels struct{}\nfunc (levels) Complete() {}\nfunc (levels) Declined() {}\n", "levels{}")
	check("type levels int\nfunc (levels) Complete() {}\nfunc (levels) Declined() {}\n", "askToolHandler{}")
	check("type a struct{}\nfunc (a) Complete() {}\nfunc (a) Declined() {}\ntype b struct{ a }\n", "askToolHandler{}")
	check("", "askToolHandler{}")
}
