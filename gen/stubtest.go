package gen

import (
	"fmt"
	"go/types"
	"slices"

	"github.com/dave/jennifer/jen"
)

const elicittestPath = "github.com/elicitgen/elicitgen/runtime/elicittest"

// StubTest renders a test skeleton for the tool named tool (its MCP name)
// declared in the packages of cfg: one scripted conversation per path
// (accept, decline and cancel at the first step, no one there) on both
// protocol eras, with runtime/elicittest. It returns the package
// directory and the gofmt-clean source; it never writes. The test fails
// while the handler returns the placeholders of Stub's skeleton.
func StubTest(cfg Config, tool string) (dir string, src []byte, diags Diagnostics, err error) {
	p, _, t, diags, err := findDecl(cfg, tool)
	if err != nil || len(diags) > 0 {
		return "", nil, diags, err
	}
	if err := testable(t); err != nil {
		return "", nil, nil, err
	}
	src, err = stubTestFile(p, t)
	return p.Dir, src, nil, err
}

// testable says why the kit cannot script t's conversation, if it cannot.
func testable(t *toolModel) error {
	if t.Kind != declTool {
		return fmt.Errorf("%s is a %s: stub --test writes tests for tools", t.MCPName, t.Kind)
	}
	if t.Task != "" {
		return fmt.Errorf("%s is a task tool, whose conversations elicittest does not script yet", t.MCPName)
	}
	for _, s := range t.Steps {
		if s.URL {
			return fmt.Errorf("%s has a URL step (%s), whose sign-in elicittest does not finish yet", t.MCPName, s.Key)
		}
	}
	if len(t.Steps) == 0 {
		return fmt.Errorf("%s asks nothing: there is no conversation to test", t.MCPName)
	}
	return nil
}

// stubTestFile renders the test of tool t, declared in package p.
func stubTestFile(p *pkgModel, t *toolModel) ([]byte, error) {
	f := newFile(p, nil)
	f.ImportAlias(runtimePath, "elicitrt")
	f.ImportName(mcpPath, "mcp")
	f.ImportName(elicittestPath, "elicittest")
	server := "new" + t.Name + "TestServer"
	emitTestServer(f, p, t, server)
	doc := fmt.Sprintf("Test%sConversations plays one conversation per path of the %s tool on both protocol eras: every step accepted, "+
		"the first declined, the first cancelled, and a client that cannot ask (its fallback). "+
		"It fails while the handler returns the placeholders of elicitgen stub; "+
		"state what each path answers where the TODOs say.", t.Name, t.MCPName)
	for _, line := range wrap(doc, 76) {
		f.Comment(line)
	}
	paths := []jen.Code{
		subtest(server, "accept", nil, acceptPath(p, t)),
		subtest(server, "decline", nil, endPath(t, "Decline", "declined")),
		subtest(server, "cancel", nil, endPath(t, "Cancel", "cancelled")),
		subtest(server, "no one there", jen.Id("Capabilities").Op(":").Qual(elicittestPath, "NoElicitation").Call(), absentPath(t)),
	}
	f.Func().Id("Test"+t.Name+"Conversations").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("args").Op(":=").Add(argsValue(p, t)).Comment("TODO: the arguments the model sends"),
		jen.For(jen.List(jen.Id("_"), jen.Id("era")).Op(":=").Range().Qual(elicittestPath, "Eras")).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("era").Dot("String").Call(), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(paths...)),
		),
	)
	return render(f)
}

// emitTestServer writes server, which serves t with the handler.
func emitTestServer(f *jen.File, p *pkgModel, t *toolModel, server string) {
	for _, line := range wrap(fmt.Sprintf("%s serves the %s tool with the handler, for Test%sConversations.", server, t.MCPName, t.Name), 76) {
		f.Comment(line)
	}
	f.Func().Id(server).Params(jen.Id("opts").Op("*").Qual(runtimePath, "ToolOptions")).Op("*").Qual(mcpPath, "Server").Block(
		jen.Id("server").Op(":=").Qual(mcpPath, "NewServer").Call(
			jen.Op("&").Qual(mcpPath, "Implementation").Values(jen.Id("Name").Op(":").Lit(p.Name), jen.Id("Version").Op(":").Lit("v0.0.0")), jen.Nil()),
		jen.Id("Register"+t.Name).Call(jen.Id("server"), handlerValue(p, t), jen.Id("opts")),
		jen.Return(jen.Id("server")),
	)
	f.Line()
}

// subtest is the subtest of one path: it starts a client of server with
// caps (nil: form elicitation) and runs body, which calls the tool.
func subtest(server, name string, caps jen.Code, body []jen.Code) jen.Code {
	opts := []jen.Code{jen.Id("Era").Op(":").Id("era")}
	if caps != nil {
		opts = append(opts, caps)
	}
	start := jen.Id("c").Op(":=").Qual(elicittestPath, "Start").Call(jen.Id("t"), jen.Id(server), jen.Op("&").Qual(elicittestPath, "Options").Values(opts...))
	return jen.Id("t").Dot("Run").Call(jen.Lit(name), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		append([]jen.Code{start}, body...)...))
}

// argsValue is the zero value of t's arguments.
func argsValue(p *pkgModel, t *toolModel) jen.Code {
	if t.Args == nil {
		return jen.Map(jen.String()).Any().Values()
	}
	return typeExpr(p.Path, t.Args).Values()
}

// call is the tool's call with the script steps, into out.
func call(t *toolModel, steps []jen.Code) jen.Code {
	params := append([]jen.Code{jen.Lit(t.MCPName), jen.Id("args")}, steps...)
	if len(steps) > 0 {
		params = append(params, jen.Line())
	}
	return jen.Id("out").Op(":=").Id("c").Dot("Call").Call(params...)
}

// stepConst names step s of t.
func stepConst(t *toolModel, s *stepModel) jen.Code { return jen.Id(t.Name + "Step" + s.GoName) }

// acceptPath answers every step with a valid form and wants the
// handler's result, which the stub's Complete (a tool error) is not.
func acceptPath(p *pkgModel, t *toolModel) []jen.Code {
	var steps []jen.Code
	var todo []string
	for _, s := range t.Steps {
		step := jen.Line().Qual(elicittestPath, "Accept").Call(stepConst(t, s), formValue(p, s))
		if s.Message != "" {
			step = step.Dot("Message").Call(jen.Lit(s.Message))
		}
		steps = append(steps, step)
		if s.AskHandler {
			todo = append(todo, fmt.Sprintf("TODO: drop the %s step if Ask%s skips it for these arguments and answers (the kit fails on a step never asked).", s.Key, s.GoName))
		}
	}
	var body []jen.Code
	for _, text := range todo {
		for _, line := range wrap(text, 64) {
			body = append(body, jen.Comment(line))
		}
	}
	return append(body, call(t, steps),
		jen.Comment(`TODO: state the result: out.WantText(t, "...")`),
		wantResult("every step accepted", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()),
	)
}

// wantResult fails the test when the call did not end with a result, or
// when bad holds.
func wantResult(path, want string, bad *jen.Statement) jen.Code {
	cond := jen.Id("out").Dot("Result").Op("==").Nil()
	if bad != nil {
		cond = cond.Op("||").Add(bad)
	}
	return jen.If(cond).Block(
		jen.Id("t").Dot("Errorf").Call(jen.Lit(path+": the call ended with %s; want "+want), jen.Id("out")))
}

// notPlaceholder is the condition that out's text has the stub's
// placeholder text.
func notPlaceholder(text string) *jen.Statement {
	return jen.Qual("strings", "Contains").Call(jen.Id("out").Dot("Text").Call(), jen.Lit(text))
}

// endPath declines (or cancels) the first step and wants the result of
// Declined (Cancelled), a normal one that is not the stub's placeholder.
func endPath(t *toolModel, action, what string) []jen.Code {
	first := t.Steps[0]
	placeholder := "Nothing was done: the " + first.Key + " question was " + what + "."
	script := []jen.Code{jen.Id("script").Op(":=").Index().Qual(elicittestPath, "Step").Values(
		jen.Qual(elicittestPath, action).Call(stepConst(t, first)))}
	var round []jen.Code
	for _, s := range t.Steps[1:] {
		if !s.Together {
			break
		}
		round = append(round, jen.Qual(elicittestPath, "Ignore").Call(stepConst(t, s)))
	}
	if len(round) > 0 {
		script = append(script, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Modern")).Block(
			jen.Comment("2026-07-28 asks the together steps in the same round"),
			jen.Id("script").Op("=").Append(append([]jen.Code{jen.Id("script")}, round...)...)))
	}
	return append(script,
		jen.Id("out").Op(":=").Id("c").Dot("Call").Call(jen.Lit(t.MCPName), jen.Id("args"), jen.Id("script").Op("...")),
		jen.Commentf(`TODO: state what the tool says when %s at %s: out.WantText(t, "...")`, what, first.Key),
		wantResult(what+" at "+first.Key, "the handler's result (a normal one, not the stub's placeholder)",
			jen.Id("out").Dot("IsError").Call().Op("||").Add(notPlaceholder(placeholder))),
	)
}

// absentPath calls the tool for a client that cannot ask, and wants what
// the steps' fallbacks make of it.
func absentPath(t *toolModel) []jen.Code {
	body := []jen.Code{call(t, nil)}
	for _, s := range t.Steps {
		switch s.Fallback {
		case "defaults":
			if defaultsAnswer(s) {
				continue
			}
			if s.Missing != "" {
				return append(body, jen.Id("out").Dot("WantToolError").Call(jen.Id("t"), jen.Lit(s.Missing)))
			}
		case "arguments":
			return append(body, jen.Id("out").Dot("WantToolError").Call(jen.Id("t"), jen.Lit(s.Missing)))
		case "handler":
			return append(body,
				jen.Comment(`TODO: state what Unavailable says: out.WantText(t, "...") or out.WantToolError(t, "...")`),
				wantResult(s.Key+" unavailable", "the result of the handler's Unavailable, not the stub's placeholder",
					notPlaceholder(t.MCPName+" needs the user to answer the "+s.Key+" question")))
		case "preview":
			return append(body,
				jen.Commentf(`TODO: state the preview: out.WantText(t, "...")`),
				wantResult(s.Key+" previewed", "the handler's preview, not the stub's placeholder",
					jen.Id("out").Dot("IsError").Call().Op("||").Add(notPlaceholder("This will "+t.MCPName+" (describe what confirming "+s.Key+" does)."))))
		}
		return append(body, jen.Comment("the "+s.Key+" step cannot be shown: fallback=error"),
			jen.Id("out").Dot("WantCode").Call(jen.Id("t"), jen.Lit(-32021)))
	}
	return append(body,
		jen.Comment(`every step answered by its defaults: TODO: state the result: out.WantText(t, "...")`),
		wantResult("answered by defaults", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()))
}

// defaultsAnswer reports whether a fallback=defaults step's defaults
// answer its form: every required property has a default.
func defaultsAnswer(s *stepModel) bool {
	return !slices.ContainsFunc(s.Form.Fields, func(f *fieldModel) bool { return f.Required && f.Default == nil })
}

// handlerValue is the handler the test registers: the one struct type of
// the package with every method of t's handler (by name), else the type
// elicitgen stub writes.
func handlerValue(p *pkgModel, t *toolModel) jen.Code {
	var found []jen.Code
	if p.types != nil {
		scope := p.types.Scope()
		for _, name := range scope.Names() {
			if v := implementer(scope.Lookup(name), t); v != nil {
				found = append(found, v)
			}
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return jen.Id(lowerFirst(t.Name) + "Handler").Values()
}

// implementer is a value of obj's type when it is a struct with every
// method of t's handler: T{} or &T{}.
func implementer(obj types.Object, t *toolModel) jen.Code {
	tn, ok := obj.(*types.TypeName)
	if !ok || tn.IsAlias() {
		return nil
	}
	if _, ok := tn.Type().Underlying().(*types.Struct); !ok {
		return nil
	}
	has := func(typ types.Type) bool {
		ms := types.NewMethodSet(typ)
		for _, m := range t.Methods {
			if ms.Lookup(tn.Pkg(), m.Name) == nil {
				return false
			}
		}
		return true
	}
	switch {
	case has(tn.Type()):
		return jen.Id(tn.Name()).Values()
	case has(types.NewPointer(tn.Type())):
		return jen.Op("&").Id(tn.Name()).Values()
	}
	return nil
}
