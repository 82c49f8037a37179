package gen

import (
	"bytes"
	"fmt"
	"go/token"
	"slices"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"

	"github.com/elicitgen/elicitgen/templates"
)

// Stub renders a handler skeleton for the tool named tool (its MCP name)
// declared in the packages of cfg: every method of the generated handler
// interface, compiling as written. It returns the package directory and the
// gofmt-clean source, and the source file that declares the tool; it
// never writes. An unknown tool is an error that lists the tools there are.
func Stub(cfg Config, tool string) (dir, source string, src []byte, diags Diagnostics, err error) {
	p, f, t, diags, err := findDecl(cfg, tool)
	if err != nil || len(diags) > 0 {
		return "", "", nil, diags, err
	}
	src, err = stubFile(p, f, t)
	return p.Dir, f.Source, src, nil, err
}

// findDecl finds the declaration named tool (its MCP name) in the packages
// of cfg, with its package and file. An unknown tool is an error that lists
// the tools there are.
func findDecl(cfg Config, tool string) (*pkgModel, *fileModel, *toolModel, Diagnostics, error) {
	diags, m, err := loadModel(cfg)
	if err != nil || len(diags) > 0 {
		return nil, nil, nil, diags, err
	}
	var where []string
	for _, p := range m.Packages {
		var names []string
		for _, f := range p.Files {
			for _, t := range f.Tools {
				if t.MCPName == tool {
					return p, f, t, nil, nil
				}
				names = append(names, t.MCPName)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			where = append(where, fmt.Sprintf("package %s (%s) declares %s", p.Name, p.Path, strings.Join(names, ", ")))
		}
	}
	if len(where) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("no tool %q: %s declares no tools (a tool is a struct marked //elicit:tool NAME)", tool, patternsText(cfg))
	}
	return nil, nil, nil, nil, fmt.Errorf("no tool %q in %s: %s", tool, patternsText(cfg), strings.Join(where, "; "))
}

func patternsText(cfg Config) string {
	if len(cfg.Patterns) == 0 {
		return "."
	}
	return strings.Join(cfg.Patterns, " ")
}

// stubFile renders the handler skeleton of tool t, declared in file of
// package p: a type with every method of t's handler interface (t.Methods,
// from which the interface is printed too), each returning a placeholder.
func stubFile(p *pkgModel, file *fileModel, t *toolModel) ([]byte, error) {
	typ := lowerFirst(t.Name) + "Handler"
	for p.types != nil && p.types.Scope().Lookup(typ) != nil {
		typ += "_"
	}
	var doc bytes.Buffer
	if err := templates.Stub.Execute(&doc, templates.StubData{
		Tool: t.MCPName, Kind: t.Kind.String(), Type: typ, Handler: t.Name + "Handler", Register: "Register" + t.Name,
		Task: taskName(t), TaskRequired: t.Task == "required", Askers: len(t.Askers()),
	}); err != nil {
		return nil, err
	}
	f := newFile(p, file.Imports)
	for _, line := range wrap(doc.String(), 76) {
		f.Comment(line)
	}
	f.Type().Id(typ).Struct()
	f.Var().Id("_").Id(t.Name + "Handler").Op("=").Id(typ).Values()
	for _, m := range t.Methods {
		f.Line()
		for _, line := range methodDoc(t, m) {
			f.Comment(line)
		}
		f.Func().Params(jen.Id(typ)).Id(m.Name).Add(methodSignature(p, t, m, true)).Block(stubBody(t, m)...)
	}
	return render(f)
}

// taskName is the task type of a task tool, or "".
func taskName(t *toolModel) string {
	if t.Task == "" {
		return ""
	}
	return t.TaskType()
}

// stubBody is the placeholder body of a stub method.
func stubBody(t *toolModel, m handlerMethod) []jen.Code {
	step := func(what string) jen.Code {
		return jen.Lit("Nothing was done: the ").Op("+").Id("step").Dot("String").Call().Op("+").Lit(" question was " + what + ".")
	}
	if t.Kind != declTool {
		switch m.Kind {
		case methodComplete:
			return []jen.Code{jen.Return(stubResult(t, jen.Lit("TODO: write the "+t.Kind.String()+" "+t.MCPName+".")), jen.Nil())}
		case methodDeclined:
			return []jen.Code{jen.Return(stubResult(t, step("declined")), jen.Nil())}
		case methodCancelled:
			return []jen.Code{jen.Return(stubResult(t, step("cancelled")), jen.Nil())}
		case methodUnavailable:
			return []jen.Code{jen.Return(stubResult(t,
				jen.Lit(t.MCPName+" needs the user to answer the ").Op("+").Id("step").Dot("String").Call().Op("+").Lit(" question")), jen.Nil())}
		}
	}
	switch m.Kind {
	case methodRun:
		return stubRun(t)
	case methodComplete:
		return []jen.Code{jen.Return(jen.Qual(runtimePath, "ToolError").Call(jen.Lit(t.MCPName+": not implemented yet")), jen.Nil())}
	case methodDeclined:
		return []jen.Code{jen.Return(jen.Qual(runtimePath, "Text").Call(step("declined")), jen.Nil())}
	case methodCancelled:
		return []jen.Code{jen.Return(jen.Qual(runtimePath, "Text").Call(step("cancelled")), jen.Nil())}
	case methodUnavailable:
		return []jen.Code{jen.Return(jen.Qual(runtimePath, "ToolError").Call(
			jen.Lit(t.MCPName+" needs the user to answer the ").Op("+").Id("step").Dot("String").Call().Op("+").Lit(" question")), jen.Nil())}
	case methodMessage:
		return []jen.Code{jen.Return(jen.Lit("Please answer the " + m.Step.Key + " question."))}
	case methodAsk:
		return []jen.Code{jen.Return(jen.True())}
	case methodPreview:
		return []jen.Code{jen.Return(jen.Lit("This will " + t.MCPName + " (describe what confirming " + m.Step.Key + " does)."))}
	}
	return []jen.Code{jen.Return(jen.Lit("https://example.com/connect?flow=").Op("+").Qual("net/url", "QueryEscape").Call(jen.Id("token")))}
}

// stubRun is the placeholder body of a task tool's Run: it reports
// progress, then asks each group of during steps with its typed asker.
func stubRun(t *toolModel) []jen.Code {
	fail := jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	body := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("task").Dot("Progress").Call(jen.Id("ctx"), jen.Lit("Working on "+t.MCPName+".")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err())),
	}
	for _, a := range t.Askers() {
		var vars []jen.Code
		var keys []string
		for _, i := range a.Steps {
			vars = append(vars, jen.Id(answerVar(t.Steps[i])))
			keys = append(keys, t.Steps[i].Key)
		}
		what := "the " + joinAnd(keys) + " question was"
		if len(keys) > 1 {
			what = "the " + joinAnd(keys) + " questions were"
		}
		blanks := make([]jen.Code, len(vars))
		for i := range blanks {
			blanks[i] = jen.Id("_")
		}
		body = append(body,
			jen.List(append(slices.Clone(vars), jen.Id("outcome"), jen.Err())...).Op(":=").Id("task").Dot(a.Name).Call(jen.Id("ctx")),
			fail.Clone(),
			jen.If(jen.Id("outcome").Op("!=").Qual(runtimePath, "Accepted")).Block(
				jen.Return(jen.Qual(runtimePath, "Text").Call(
					jen.Lit("Stopped: "+what+" not accepted (").Op("+").String().Call(jen.Id("outcome")).Op("+").Lit(").")), jen.Nil())),
			jen.List(blanks...).Op("=").List(vars...).Comment(map[bool]string{true: "use the answer", false: "use the answers"}[len(vars) == 1]),
		)
	}
	return append(body, jen.Return(jen.Qual(runtimePath, "ToolError").Call(jen.Lit(t.MCPName+": not implemented yet")), jen.Nil()))
}

// answerVar names the variable of a step's answer in a stub, clear of the
// method's own names and of Go's.
func answerVar(s *stepModel) string {
	v := lowerFirst(s.GoName)
	switch v {
	case "ctx", "req", "task", "args", "answers", "outcome", "err", "string", "nil", "elicitrt", "mcp", "context", "fmt", "url":
		return v + "Answer"
	}
	if token.IsKeyword(v) {
		return v + "Answer"
	}
	return v
}

func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// wrap fills text's words into lines of at most width bytes (a longer word
// stands alone).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// stubResult is the placeholder result of a stub's Complete, Declined,
// Cancelled or Unavailable method of a prompt or resource, saying text.
func stubResult(t *toolModel, text jen.Code) jen.Code {
	if t.Kind == declPrompt {
		return jen.Qual(runtimePath, "PromptText").Call(jen.Lit(""), text)
	}
	return jen.Qual(runtimePath, "ResourceText").Call(jen.Id("req").Dot("Params").Dot("URI"), jen.Lit(t.MIMEType), text)
}
