package gen

import (
	"fmt"
	"go/types"
	"slices"

	"github.com/dave/jennifer/jen"
)

const elicittestPath = "github.com/elicitgen/elicitgen/runtime/elicittest"

// StubTest renders a test skeleton for the tool named tool (its MCP name)
// declared in the packages of cfg: the whole conversation of the tool on
// both protocol eras, with runtime/elicittest: every step accepted; each
// step declined and cancelled; a confirmation answered no; a client that
// cannot ask (its fallbacks, a preview and its token); the replay of a
// once step; URL steps signed in, denied and through their link; a task
// tool as a task. It returns the package directory and the gofmt-clean
// source; it never writes. The test fails until newXHandler builds the
// handler and the handler answers each path (docs/guide/testing.md).
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

// testingDoc is the section of docs/guide/testing.md that says what the
// written test covers, and what to write by hand beyond it.
const testingDoc = "docs/guide/testing.md#the-test-elicitgen-stub---test-writes"

// testable says why stub --test writes no test for t, if it does not.
func testable(t *toolModel) error {
	if t.Kind != declTool {
		return fmt.Errorf("%s is a %s: stub --test writes tests for tools; script its conversation by hand with GetPrompt or ReadResource (%s)", t.MCPName, t.Kind, testingDoc)
	}
	if len(t.Steps) == 0 && t.Task == "" {
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
	g := &testGen{p: p, t: t, server: "new" + t.Name + "TestServer", handler: "new" + t.Name + "Handler"}
	g.emitHandler(f)
	g.emitServer(f)
	paths := g.paths()
	doc := fmt.Sprintf("Test%sConversations plays the conversations of the %s tool on both protocol eras, one subtest a path. "+
		"It fails until %s builds the handler and the handler answers each path; "+
		"state what each path answers where the TODOs say (%s).", t.Name, t.MCPName, g.handler, testingDoc)
	for _, line := range wrap(doc, 76) {
		f.Comment(line)
	}
	f.Func().Id("Test"+t.Name+"Conversations").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("args").Op(":=").Add(argsValue(p, t)).Comment("TODO: the arguments the model sends"),
		jen.For(jen.List(jen.Id("_"), jen.Id("era")).Op(":=").Range().Qual(elicittestPath, "Eras")).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("era").Dot("String").Call(), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(paths...)),
		),
	)
	if g.tokens {
		emitWithToken(f)
	}
	return render(f)
}

// testGen writes the test of one tool.
type testGen struct {
	p               *pkgModel
	t               *toolModel
	server, handler string
	tokens          bool // the test uses withToken
}

// fillIn begins the error of the handler's builder until it is filled in.
const fillIn = "TODO: fill in "

// emitHandler writes the function that builds the handler: the user's to
// fill in, failing the test until they do.
func (g *testGen) emitHandler(f *jen.File) {
	doc := fmt.Sprintf("%s builds the handler the tests register, as the server builds it, with its dependencies. "+
		"TODO: build it, then delete the t.Error line.", g.handler)
	for _, line := range wrap(doc, 76) {
		f.Comment(line)
	}
	f.Func().Id(g.handler).Params(jen.Id("t").Op("*").Qual("testing", "T")).Id(g.t.Name+"Handler").Block(
		jen.Id("t").Dot("Helper").Call(),
		jen.Id("t").Dot("Error").Call(jen.Lit(fillIn+g.handler+": build the handler the tests register")),
		jen.Return(handlerValue(g.p, g.t)),
	)
	f.Line()
}

// emitServer writes the server of the test: the tool, served by h.
func (g *testGen) emitServer(f *jen.File) {
	for _, line := range wrap(fmt.Sprintf("%s serves the %s tool with h, for Test%sConversations.", g.server, g.t.MCPName, g.t.Name), 76) {
		f.Comment(line)
	}
	opts := jen.Id("opts").Op("*").Qual(runtimePath, "ToolOptions")
	f.Func().Id(g.server).Params(jen.Id("h").Id(g.t.Name+"Handler")).Func().Params(opts.Clone()).Op("*").Qual(mcpPath, "Server").Block(
		jen.Return(jen.Func().Params(opts).Op("*").Qual(mcpPath, "Server").Block(
			jen.Id("server").Op(":=").Qual(mcpPath, "NewServer").Call(
				jen.Op("&").Qual(mcpPath, "Implementation").Values(jen.Id("Name").Op(":").Lit(g.p.Name), jen.Id("Version").Op(":").Lit("v0.0.0")), jen.Nil()),
			jen.Id("Register"+g.t.Name).Call(jen.Id("server"), jen.Id("h"), jen.Id("opts")),
			jen.Return(jen.Id("server")),
		)),
	)
	f.Line()
}

// emitWithToken writes withToken, which adds a confirmation token to the
// tool's arguments.
func emitWithToken(f *jen.File) {
	f.Line()
	f.Comment("withToken returns args, as JSON, with the confirmation token of a preview.")
	f.Func().Id("withToken").Params(jen.Id("t").Op("*").Qual("testing", "T"), jen.Id("args").Any(), jen.Id("token").String()).Map(jen.String()).Any().Block(
		jen.Id("t").Dot("Helper").Call(),
		jen.Id("m").Op(":=").Map(jen.String()).Any().Values(),
		jen.If(jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("args")),
			jen.Err().Op("!=").Nil().Op("||").Qual("encoding/json", "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("m")).Op("!=").Nil()).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("the arguments %v as JSON: %v"), jen.Id("args"), jen.Err())),
		jen.Id("m").Index(jen.Qual(runtimePath, "PreviewTokenArgument")).Op("=").Id("token"),
		jen.Return(jen.Id("m")),
	)
}

// argsValue is the zero value of t's arguments.
func argsValue(p *pkgModel, t *toolModel) jen.Code {
	if t.Args == nil {
		return jen.Map(jen.String()).Any().Values()
	}
	return typeExpr(p.Path, t.Args).Values()
}

// stepConst names step s of t.
func stepConst(t *toolModel, s *stepModel) jen.Code { return jen.Id(t.Name + "Step" + s.GoName) }

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
