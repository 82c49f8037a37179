package gen

import (
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

// DeclKind is what a declaration declares.
type DeclKind int

const (
	DeclTool     DeclKind = iota // //elicit:tool NAME: tools/call
	DeclPrompt                   // //elicit:prompt NAME: prompts/get
	DeclResource                 // //elicit:resource URI [MIME-TYPE]: resources/read
)

func (k DeclKind) String() string { return [...]string{"tool", "prompt", "resource"}[k] }

// PromptArg is one argument of a prompt (the spec's PromptArgument): its
// value is a string.
type PromptArg struct {
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
// reports false, with the problem, when the directive is malformed.
func (c *checker) declName(pt pendingTool, t *Tool) bool {
	var found []*ast.Comment
	for k, d := range declDirectives {
		if cm := directiveComment(pt.doc, d); cm != nil {
			found = append(found, cm)
			t.Kind = DeclKind(k)
		}
	}
	if len(found) > 1 {
		slices.SortFunc(found, func(a, b *ast.Comment) int { return int(a.Pos() - b.Pos()) })
		c.errorf(found[1].Pos(), "%s declares one tool, prompt or resource: drop all but one of its directives", pt.spec.Name.Name)
		return false
	}
	directive := declDirectives[t.Kind]
	arg, _ := directiveArg(pt.doc, directive)
	words := strings.Fields(arg)
	at := found[0].Pos()
	switch t.Kind {
	case DeclResource:
		if len(words) == 0 || len(words) > 2 {
			c.errorf(at, "%s needs the resource's URI, and at most its MIME type: %s URI [MIME-TYPE]", directive, directive)
			return false
		}
		uri := words[0]
		if problem := uriProblem(uri); problem != "" {
			c.errorf(at+token.Pos(len(directive)+1), "resource URI %q: %s", uri, problem)
			return false
		}
		t.MCPName, t.Template = uri, strings.Contains(uri, "{")
		if len(words) == 2 {
			if !strings.Contains(words[1], "/") {
				c.errorf(at+token.Pos(strings.Index(found[0].Text, words[1])), "resource %s: %q is no MIME type (type/subtype, for example text/plain)", uri, words[1])
				return false
			}
			t.MIMEType = words[1]
		}
	default:
		if len(words) != 1 {
			c.errorf(at, "%s needs the %s's name: %s NAME", directive, t.Kind, directive)
			return false
		}
		t.MCPName = words[0]
	}
	return true
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

// declArgs checks the Args field v of a prompt or resource declaration.
func (c *checker) declArgs(t *Tool, v *types.Var, pos token.Pos) {
	if t.Kind == DeclResource {
		c.errorf(pos, "resource %s has no arguments besides its URI: drop Args (the handler reads the URI in req.Params.URI)", t.MCPName)
		return
	}
	st, ok := types.Unalias(v.Type()).Underlying().(*types.Struct)
	if !ok {
		c.errorf(pos, "Args of prompt %s must be a struct type (the prompt's arguments)", t.MCPName)
		return
	}
	ok = true
	var args []PromptArg
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
		args = append(args, PromptArg{Name: name, Description: tag.Get("jsonschema"), Required: !optional})
	}
	if ok {
		t.Args, t.PromptArgs = v.Type(), args
	}
}

// declStep refuses what a step of a prompt or resource cannot do.
func (c *checker) declStep(t *Tool, s *ToolStep, where stepAt) {
	if t.Kind == DeclTool {
		return
	}
	if s.Fallback == "preview" {
		c.errorf(where.fallback, "step %s of %s %s: fallback=preview is for tools (its token rides in the tool's arguments); use fallback=error or fallback=handler", s.GoName, t.Kind, t.MCPName)
	}
	if !s.Prefill {
		return
	}
	if t.Kind == DeclResource {
		c.errorf(where.prefill, "step %s of resource %s: a resource has no arguments to prefill from: drop prefill", s.GoName, t.MCPName)
		return
	}
	if s.Form == nil {
		return
	}
	for _, fd := range s.Form.Fields {
		switch fd.Kind {
		case KindString, KindEnum, KindTime:
		default:
			c.errorf(where.prefill, "step %s of prompt %s prefills property %q of form %s, which is not a string: prompt arguments are strings, so only string, single-select and time properties can be prefilled; drop prefill",
				s.GoName, t.MCPName, fd.Property, s.Form.Name)
			return
		}
	}
}

// promptPrefillArgs appends a prompt's prefilled properties to its
// arguments, optional, after Args' own.
func promptPrefillArgs(t *Tool) {
	for _, s := range t.Steps {
		if !s.Prefill || s.Form == nil {
			continue
		}
		for _, fd := range s.Form.Fields {
			t.PromptArgs = append(t.PromptArgs, PromptArg{Name: fd.Property, Title: fd.Title, Description: fd.Description})
		}
	}
}

// argsExpr is the argument type of t's handler: Args, or struct{} for a
// prompt without arguments.
func argsExpr(pkg *Package, t *Tool) *jen.Statement {
	if t.Args == nil {
		return jen.Struct()
	}
	return typeExpr(pkg.Path, t.Args)
}

// requestType and resultType are the SDK types of t's kind.
func requestType(t *Tool) *jen.Statement {
	return jen.Op("*").Qual(mcpPath, [...]string{"CallToolRequest", "GetPromptRequest", "ReadResourceRequest"}[t.Kind])
}

func resultType(t *Tool) *jen.Statement {
	return jen.Op("*").Qual(mcpPath, [...]string{"CallToolResult", "GetPromptResult", "ReadResourceResult"}[t.Kind])
}

// registerDecl is the body of a prompt's or resource's Register function.
func registerDecl(pkg *Package, t *Tool, steps []jen.Code, typed jen.Dict) []jen.Code {
	stepList := jen.Index().Qual(runtimePath, "Step").Values(steps...)
	if t.Kind == DeclPrompt {
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
func stubResult(t *Tool, text jen.Code) jen.Code {
	if t.Kind == DeclPrompt {
		return jen.Qual(runtimePath, "PromptText").Call(jen.Lit(""), text)
	}
	return jen.Qual(runtimePath, "ResourceText").Call(jen.Id("req").Dot("Params").Dot("URI"), jen.Lit(t.MIMEType), text)
}

// writeEnumNames writes a titled single-select in the deprecated form of
// the spec's LegacyTitledEnumSchema: "enum":[values],"enumNames":[titles].
func writeEnumNames(o *object, e *Enum) {
	list := func(key string, value func(EnumValue) string) {
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
	list("enum", func(v EnumValue) string { return v.Value })
	list("enumNames", func(v EnumValue) string { return v.Title })
}
