package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
)

// Prompts and resources that ask (//elicit:prompt NAME, //elicit:resource
// URI): declared, checked and generated as tools are (a Tool with its
// Kind), with the rules of their kind. This file holds what differs.

const (
	directivePrompt   = "//elicit:prompt"
	directiveResource = "//elicit:resource"
)

// declKind is what a declaration declares.
type declKind int

const (
	declTool     declKind = iota // //elicit:tool NAME: tools/call
	declPrompt                   // //elicit:prompt NAME: prompts/get
	declResource                 // //elicit:resource URI [MIME-TYPE]: resources/read
)

func (k declKind) String() string { return [...]string{"tool", "prompt", "resource"}[k] }

// promptArg is one argument of a prompt (the spec's PromptArgument): its
// value is a string.
type promptArg struct {
	Name, Title, Description string
	Required                 bool
}

var declDirectives = []string{directiveTool, directivePrompt, directiveResource}

// isDecl reports whether doc declares a tool, a prompt or a resource.
func isDecl(doc *ast.CommentGroup) bool {
	return slices.ContainsFunc(declDirectives, func(d string) bool { return hasDirective(doc, d) })
}

// declName reads the declaration's directive into t: its kind, and the
// name (a tool's or prompt's) or URI and MIME type (a resource's). It
// reports false when the kind is unknown (two directives); a bad name is
// reported, and the declaration checked on with it, so that its other
// problems are reported in the same run.
func (c *checker) declName(pt pendingTool, t *toolModel) bool {
	var found []*ast.Comment
	for k, d := range declDirectives {
		if cm := directiveComment(pt.doc, d); cm != nil {
			found = append(found, cm)
			t.Kind = declKind(k)
		}
	}
	if len(found) > 1 {
		slices.SortFunc(found, func(a, b *ast.Comment) int { return int(a.Pos() - b.Pos()) })
		c.errorf(found[1].Pos(), "%s declares one tool, prompt or resource: drop all but one of its directives", pt.spec.Name.Name)
		return false
	}
	cm := found[0]
	arg, _ := directiveArg(pt.doc, declDirectives[t.Kind])
	if t.Kind == declResource {
		c.resourceName(t, cm, strings.Fields(arg))
	} else {
		c.toolName(t, cm, arg)
	}
	c.claimName(pt.spec.Name.Name, t, cm)
	return true
}

// argAt is the position of word in the directive comment cm.
func argAt(cm *ast.Comment, word string) token.Pos {
	return cm.Pos() + token.Pos(max(strings.Index(cm.Text, word), 0))
}

// toolName reads the name of a tool or prompt: one word; a tool's within
// the spec's tool-name rules.
func (c *checker) toolName(t *toolModel, cm *ast.Comment, arg string) {
	directive := declDirectives[t.Kind]
	t.MCPName = arg
	switch {
	case arg == "":
		c.errorf(cm.Pos(), "%s needs the %s's name: %s NAME", directive, t.Kind, directive)
	case t.Kind == declTool:
		if problem := toolNameProblem(arg); problem != "" {
			c.errorf(argAt(cm, arg), "tool name %q %s: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, _, - and . (the spec's tool-name rules, SEP-986): write %s %s",
				arg, problem, directive, toolNameFix(arg))
		}
	case strings.ContainsAny(arg, " \t"):
		c.errorf(argAt(cm, arg), "prompt name %q has a space: a prompt's name is one word: write %s %s", arg, directive, toolNameFix(arg))
	}
}

// toolNameProblem says how name breaks the spec's tool-name rules, or "".
func toolNameProblem(name string) string {
	for _, r := range name {
		switch {
		case r == ' ' || r == '\t':
			return "has a space"
		case !toolNameRune(r):
			return fmt.Sprintf("has the character %q", r)
		}
	}
	if n := len(name); n > 128 {
		return fmt.Sprintf("is %d characters long", n)
	}
	return ""
}

func toolNameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// toolNameFix is name within the tool-name rules: each run of other
// characters as one "_", none at the ends, at most 128 characters.
func toolNameFix(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		ok := toolNameRune(r)
		if ok {
			b.WriteRune(r)
		} else if !under {
			b.WriteByte('_')
		}
		under = !ok
	}
	fixed := strings.Trim(b.String(), "_")
	return cmp.Or(fixed[:min(len(fixed), 128)], "name")
}

// resourceName reads a resource's URI and MIME type from words.
func (c *checker) resourceName(t *toolModel, cm *ast.Comment, words []string) {
	if len(words) == 0 || len(words) > 2 {
		c.errorf(cm.Pos(), "%s needs the resource's URI, and at most its MIME type: %s URI [MIME-TYPE]", directiveResource, directiveResource)
		if len(words) == 0 {
			return
		}
	}
	uri := words[0]
	if problem := uriProblem(uri); problem != "" {
		c.errorf(argAt(cm, uri), "resource URI %q: %s", uri, problem)
	}
	t.MCPName, t.Template = uri, strings.Contains(uri, "{")
	if len(words) == 2 {
		if !strings.Contains(words[1], "/") {
			c.errorf(argAt(cm, words[1]), "resource %s: %q is no MIME type (type/subtype, for example text/plain)", uri, words[1])
		}
		t.MIMEType = words[1]
	}
}

// declaredAt is where a name was declared first in the package.
type declaredAt struct {
	pos    token.Pos
	goName string
}

// claimName reports a tool, prompt or resource declared twice in the
// package, at both declarations, each naming the other.
func (c *checker) claimName(goName string, t *toolModel, cm *ast.Comment) {
	if t.MCPName == "" {
		return
	}
	key := t.Kind.String() + " " + t.MCPName
	prev, dup := c.declared[key]
	if !dup {
		if c.declared == nil {
			c.declared = map[string]declaredAt{}
		}
		c.declared[key] = declaredAt{cm.Pos(), goName}
		return
	}
	what := map[declKind]string{declTool: "tool name", declPrompt: "prompt name", declResource: "resource URI"}[t.Kind]
	say := func(at token.Pos, other string, otherAt token.Pos) {
		c.errorf(at, "%s %q is declared twice, here and by %s at %s: rename one (a server has one %s of each, and the second registration would replace the first)",
			what, t.MCPName, other, c.relPos(otherAt), t.Kind)
	}
	say(prev.pos, goName, cm.Pos())
	say(cm.Pos(), prev.goName, prev.pos)
}

// uriProblem says what is wrong with a resource URI or URI template, or "".
func uriProblem(uri string) string {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "{}/") {
		return "a URI starts with its scheme (for example notes://{id})"
	}
	depth := 0
	for _, r := range uri {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth < 0 || depth > 1 {
			return "its braces do not pair: a template's variables are {name}"
		}
	}
	if depth != 0 || strings.Contains(uri, "{}") {
		return "its braces do not pair: a template's variables are {name}"
	}
	return ""
}

// declArgs checks the Args field v of a declaration.
func (c *checker) declArgs(t *toolModel, v *types.Var, pos token.Pos) {
	if t.Kind == declTool {
		c.toolArgs(t, v, pos)
		return
	}
	if t.Kind == declResource {
		c.errorf(pos, "resource %s has no arguments besides its URI: drop Args (the handler reads the URI in req.Params.URI)", t.MCPName)
		return
	}
	st, ok := types.Unalias(v.Type()).Underlying().(*types.Struct)
	if !ok {
		c.errorf(pos, "Args of prompt %s must be a struct type (the prompt's arguments)", t.MCPName)
		return
	}
	ok = true
	var args []promptArg
	for i := range st.NumFields() {
		f := st.Field(i)
		name, skip := jsonFieldName(st.Tag(i))
		if skip {
			continue
		}
		if f.Embedded() {
			c.errorf(f.Pos(), "prompt %s: embedded field %s of its Args: declare each argument as a field of its own", t.MCPName, f.Name())
			ok = false
			continue
		}
		if !f.Exported() {
			continue
		}
		if b, isBasic := types.Unalias(f.Type()).Underlying().(*types.Basic); !isBasic || b.Kind() != types.String {
			c.errorf(f.Pos(), "prompt %s: argument field %s is %s: prompt arguments are strings (prompts/get carries them as a map of strings); declare it string and parse it in the handler",
				t.MCPName, f.Name(), types.TypeString(f.Type(), types.RelativeTo(c.pkg.Types)))
			ok = false
			continue
		}
		if name == "" {
			name = f.Name()
		}
		tag := reflect.StructTag(st.Tag(i))
		j, _ := tag.Lookup("json")
		_, opts, _ := strings.Cut(j, ",")
		optional := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		args = append(args, promptArg{Name: name, Description: tag.Get("jsonschema"), Required: !optional})
	}
	if ok {
		t.Args, t.PromptArgs = v.Type(), args
	}
}

// declStep refuses what a step of a prompt or resource cannot do.
func (c *checker) declStep(t *toolModel, s *stepModel, where stepAt) {
	if t.Kind == declTool {
		return
	}
	if s.Fallback == "preview" {
		c.errorf(where.fallback, "step %s of %s %s: fallback=preview is for tools (its token rides in the tool's arguments); use fallback=error or fallback=handler", s.GoName, t.Kind, t.MCPName)
	}
	if !s.Prefill {
		return
	}
	if t.Kind == declResource {
		c.errorf(where.prefill, "step %s of resource %s: a resource has no arguments to prefill from: drop prefill", s.GoName, t.MCPName)
		return
	}
	if s.Form == nil {
		return
	}
	for _, fd := range s.Form.Fields {
		switch fd.Kind {
		case kindString, kindEnum, kindTime:
		default:
			c.errorf(where.prefill, "step %s of prompt %s prefills property %q of form %s, which is not a string: prompt arguments are strings, so only string, single-select and time properties can be prefilled; drop prefill",
				s.GoName, t.MCPName, fd.Property, s.Form.Name)
			return
		}
	}
}

// promptPrefillArgs appends a prompt's prefilled properties to its
// arguments, optional, after Args' own.
func promptPrefillArgs(t *toolModel) {
	for _, s := range t.Steps {
		if !s.Prefill || s.Form == nil {
			continue
		}
		for _, fd := range s.Form.Fields {
			t.PromptArgs = append(t.PromptArgs, promptArg{Name: fd.Property, Title: fd.Title, Description: fd.Description})
		}
	}
}

// argsExpr is the argument type of t's handler: Args, or struct{} for a
// prompt without arguments.
func argsExpr(pkg *pkgModel, t *toolModel) *jen.Statement {
	if t.Args == nil {
		return jen.Struct()
	}
	return typeExpr(pkg.Path, t.Args)
}

// requestType and resultType are the SDK types of t's kind.
func requestType(t *toolModel) *jen.Statement {
	return jen.Op("*").Qual(mcpPath, [...]string{"CallToolRequest", "GetPromptRequest", "ReadResourceRequest"}[t.Kind])
}

func resultType(t *toolModel) *jen.Statement {
	return jen.Op("*").Qual(mcpPath, [...]string{"CallToolResult", "GetPromptResult", "ReadResourceResult"}[t.Kind])
}

// registerDecl is the body of a prompt's or resource's Register function.
func registerDecl(pkg *pkgModel, t *toolModel, steps []jen.Code, typed jen.Dict) []jen.Code {
	stepList := jen.Index().Qual(runtimePath, "Step").Values(steps...)
	if t.Kind == declPrompt {
		args := argsExpr(pkg, t)
		var list []jen.Code
		for _, a := range t.PromptArgs {
			d := jen.Dict{jen.Id("Name"): jen.Lit(a.Name)}
			if a.Title != "" {
				d[jen.Id("Title")] = jen.Lit(a.Title)
			}
			if a.Description != "" {
				d[jen.Id("Description")] = jen.Lit(a.Description)
			}
			if a.Required {
				d[jen.Id("Required")] = jen.True()
			}
			list = append(list, jen.Values(d))
		}
		prompt := jen.Dict{jen.Id("Name"): jen.Lit(t.MCPName), jen.Id("Description"): jen.Lit(t.Description)}
		if len(list) > 0 {
			prompt[jen.Id("Arguments")] = jen.Index().Op("*").Qual(mcpPath, "PromptArgument").Values(list...)
		}
		return []jen.Code{
			jen.Id("m").Op(":=").Qual(runtimePath, "NewPromptMachine").Call(jen.Lit(t.MCPName), stepList,
				jen.Qual(runtimePath, "TypedPrompt").Types(args.Clone(), jen.Id(t.Name+"Answers"), jen.Id(t.Name+"Step")).Values(typed), jen.Id("opts")),
			jen.Qual(runtimePath, "AddPrompt").Types(args.Clone()).Call(jen.Id("server"), jen.Op("&").Qual(mcpPath, "Prompt").Values(prompt), jen.Id("m")),
		}
	}
	res := jen.Dict{jen.Id("Name"): jen.Lit(t.Name), jen.Id("Description"): jen.Lit(t.Description)}
	if t.MIMEType != "" {
		res[jen.Id("MIMEType")] = jen.Lit(t.MIMEType)
	}
	add, typ := "AddResource", "Resource"
	if t.Template {
		add, typ = "AddResourceTemplate", "ResourceTemplate"
		res[jen.Id("URITemplate")] = jen.Lit(t.MCPName)
	} else {
		res[jen.Id("URI")] = jen.Lit(t.MCPName)
	}
	return []jen.Code{
		jen.Id("m").Op(":=").Qual(runtimePath, "NewResourceMachine").Call(jen.Lit(t.MCPName), stepList,
			jen.Qual(runtimePath, "TypedResource").Types(jen.Id(t.Name+"Answers"), jen.Id(t.Name+"Step")).Values(typed), jen.Id("opts")),
		jen.Qual(runtimePath, add).Call(jen.Id("server"), jen.Op("&").Qual(mcpPath, typ).Values(res), jen.Id("m")),
	}
}

// stubResult is the placeholder result of a stub's Complete, Declined,
// Cancelled or Unavailable method of a prompt or resource, saying text.
func stubResult(t *toolModel, text jen.Code) jen.Code {
	if t.Kind == declPrompt {
		return jen.Qual(runtimePath, "PromptText").Call(jen.Lit(""), text)
	}
	return jen.Qual(runtimePath, "ResourceText").Call(jen.Id("req").Dot("Params").Dot("URI"), jen.Lit(t.MIMEType), text)
}

// writeEnumNames writes a titled single-select in the deprecated form of
// the spec's LegacyTitledEnumSchema: "enum":[values],"enumNames":[titles].
func writeEnumNames(o *object, e *enumModel) {
	list := func(key string, value func(enumValue) string) {
		o.key(key)
		o.b.WriteByte('[')
		for i, v := range e.Values {
			if i > 0 {
				o.b.WriteByte(',')
			}
			writeString(o.b, value(v))
		}
		o.b.WriteByte(']')
	}
	list("enum", func(v enumValue) string { return v.Value })
	list("enumNames", func(v enumValue) string { return v.Title })
}

// toolArgs checks the Args field v of a tool: a struct, without
// time.Duration fields. A bad one is reported and still taken, so that
// the tool is not also said to have no Args.
func (c *checker) toolArgs(t *toolModel, v *types.Var, pos token.Pos) {
	t.Args = v.Type()
	st, ok := types.Unalias(v.Type()).Underlying().(*types.Struct)
	if !ok {
		c.errorf(pos, "Args of tool %s must be a struct type (the tool's arguments), not %s", t.MCPName, types.TypeString(v.Type(), types.RelativeTo(c.pkg.Types)))
		return
	}
	for i := range st.NumFields() {
		if f := st.Field(i); isDuration(f.Type()) {
			c.errorf(f.Pos(), "argument field %s is a time.Duration, which the model would have to send as an integer of nanoseconds: %s", f.Name(), durationHint)
		}
	}
}

// durationHint says what to declare instead of a time.Duration.
const durationHint = "declare a number of seconds (an integer field such as TimeoutSeconds int) or a string parsed with time.ParseDuration (such as \"90s\")"

// isDuration reports whether t is time.Duration.
func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}
