package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

const (
	directiveTool        = "//elicit:tool"
	directiveAnnotations = "//elicit:annotations"
)

type pendingTool struct {
	file *File
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
}

// stepOptions lists the options of a step's elicit tag.
var stepOptions = map[string]bool{"message": true, "ask": true, "prefill": false, "fallback": true, "once": false, "together": false}

// resolveTools checks the package's tool declarations against its forms.
func (c *checker) resolveTools(p *Package) {
	forms := map[string]*Form{}
	for _, f := range p.Files {
		for _, form := range f.Forms {
			forms[form.Name] = form
		}
	}
	for _, pt := range c.pendingTools {
		if tool := c.checkTool(pt, forms); tool != nil {
			pt.file.Tools = append(pt.file.Tools, tool)
		}
	}
	c.pendingTools = nil
	files := p.Files[:0]
	for _, f := range p.Files {
		if len(f.Forms) > 0 || len(f.Tools) > 0 {
			files = append(files, f)
		}
	}
	p.Files = files
}

func (c *checker) checkTool(pt pendingTool, forms map[string]*Form) *Tool {
	ts := pt.spec
	name, _ := directiveArg(pt.doc, directiveTool)
	tool := &Tool{Name: ts.Name.Name, MCPName: name, Description: firstParagraph(pt.doc), Pos: c.fset.Position(ts.Name.Pos())}
	if name == "" || strings.ContainsAny(name, " \t") {
		c.errorf(ts.Name.Pos(), "//elicit:tool needs the tool's name: //elicit:tool NAME")
		return nil
	}
	if ann, ok := directiveArg(pt.doc, directiveAnnotations); ok {
		for _, a := range strings.FieldsFunc(ann, func(r rune) bool { return r == ',' || r == ' ' }) {
			switch a {
			case "readonly":
				tool.ReadOnly = true
			case "destructive":
				tool.Destructive = true
			case "idempotent":
				tool.Idempotent = true
			case "openworld":
				tool.OpenWorld = true
			default:
				c.errorf(ts.Name.Pos(), "unknown annotation %q (known: readonly, destructive, idempotent, openworld)", a)
			}
		}
		if tool.ReadOnly && tool.Destructive {
			c.errorf(ts.Name.Pos(), "tool %s cannot be both readonly and destructive", name)
		}
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || (ts.TypeParams != nil && len(ts.TypeParams.List) > 0) {
		c.errorf(ts.Name.Pos(), "tool declaration %s must be a non-generic struct type", ts.Name.Name)
		return nil
	}
	obj, _ := c.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil
	}
	tstruct := obj.Type().Underlying().(*types.Struct)
	keys := map[string]bool{}
	index := 0
	for _, af := range st.Fields.List {
		names := af.Names
		if len(names) == 0 {
			names = []*ast.Ident{nil}
		}
		for _, id := range names {
			v := tstruct.Field(index)
			index++
			pos := af.Pos()
			if id != nil {
				pos = id.Pos()
			}
			if v.Name() == "Args" {
				if _, ok := types.Unalias(v.Type()).Underlying().(*types.Struct); !ok {
					c.errorf(pos, "Args of tool %s must be a struct type (the tool's arguments)", name)
					continue
				}
				tool.Args = v.Type()
				continue
			}
			var prev *ToolStep // the step before, for together
			if n := len(tool.Steps); n > 0 {
				prev = tool.Steps[n-1]
			}
			if step := c.checkStep(name, v, af, pos, tstruct.Tag(index-1), forms, prev); step != nil {
				if keys[step.Key] {
					c.errorf(pos, "step key %q used twice in tool %s", step.Key, name)
					continue
				}
				keys[step.Key] = true
				tool.Steps = append(tool.Steps, step)
			}
		}
	}
	if tool.Args == nil {
		c.errorf(ts.Name.Pos(), "tool %s has no Args field: declare the argument struct as a field named Args (struct{} for none)", name)
		return nil
	}
	if len(tool.Steps) == 0 {
		c.errorf(ts.Name.Pos(), "tool %s has no steps: add a field whose type is a form", name)
		return nil
	}
	rounds := 0
	for _, s := range tool.Steps {
		if !s.Together {
			rounds++
		}
	}
	if rounds > elicitrt.DefaultMaxRounds {
		c.errorf(ts.Name.Pos(), "tool %s asks %d rounds of questions (%d steps); a call takes at most %d (MRTR clients stop after 10 attempts): merge steps into fewer forms, or ask some together",
			name, rounds, len(tool.Steps), elicitrt.DefaultMaxRounds)
	}
	for _, s := range tool.Steps[:len(tool.Steps)-1] {
		if s.Once {
			c.errorf(ts.Name.Pos(), "tool %s: once belongs on the final step (it makes completing the flow single use), not on %s", name, s.GoName)
		}
	}
	if !c.freeNames(ts.Name.Pos(), tool) {
		return nil
	}
	return tool
}

func (c *checker) checkStep(tool string, v *types.Var, af *ast.Field, pos token.Pos, rawTag string, forms map[string]*Form, prev *ToolStep) *ToolStep {
	named, _ := types.Unalias(v.Type()).(*types.Named)
	var form *Form
	isURL := named != nil && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == runtimePath && named.Obj().Name() == "URLStep"
	if named != nil && named.Obj().Pkg() == c.pkg.Types {
		form = forms[named.Obj().Name()]
	}
	if form == nil && !isURL {
		c.errorf(pos, "step %s of tool %s: its type must be a form declared in package %s, or elicitrt.URLStep", v.Name(), tool, c.pkg.Name)
		return nil
	}
	step := &ToolStep{GoName: v.Name(), Key: strings.ToLower(v.Name()), Form: form, URL: isURL, Fallback: "error"}
	tagPos := pos
	if af.Tag != nil {
		tagPos = af.Tag.Pos()
	}
	value, present := lookupTag(rawTag, "elicit")
	if present {
		parts := strings.Split(value, ",")
		if n := strings.TrimSpace(parts[0]); n != "" {
			step.Key = n
		}
		if !validStepKey(step.Key) {
			c.errorf(tagPos, "step key %q: use letters, digits, _ and - (a dot would collide with the keys of repeated questions)", step.Key)
		}
		for _, opt := range parts[1:] {
			key, val, hasVal := strings.Cut(opt, "=")
			takes, known := stepOptions[key]
			switch {
			case key == "":
				c.errorf(tagPos, "empty step option in elicit tag %q", value)
				continue
			case !known:
				c.errorf(tagPos, "unknown step option %q (known: ask, fallback, message, once, prefill, together)", key)
				continue
			case takes && (!hasVal || val == ""):
				c.errorf(tagPos, "step option %q needs a value", key)
				continue
			case !takes && hasVal:
				c.errorf(tagPos, "step option %q takes no value", key)
				continue
			}
			switch key {
			case "message":
				if val == "handler" {
					step.MessageHandler = true
				} else {
					step.Message = val
				}
			case "ask":
				if val != "handler" {
					c.errorf(tagPos, "ask=%s: the only value is handler (the handler decides whether to ask)", val)
				}
				step.AskHandler = true
			case "prefill":
				step.Prefill = true
			case "once":
				step.Once = true
			case "together":
				step.Together = true
			case "fallback":
				switch val {
				case "error", "defaults", "arguments", "handler":
					step.Fallback = val
				default:
					c.errorf(tagPos, "fallback=%s: use defaults, arguments, error or handler", val)
				}
			}
		}
	}
	if step.Message == "" && !step.MessageHandler {
		c.errorf(tagPos, "step %s of tool %s has no message: message=TEXT or message=handler", v.Name(), tool)
	}
	if step.Together {
		switch {
		case prev == nil:
			c.errorf(tagPos, "step %s: together joins the round of the step before it, and it is the first step", v.Name())
		case step.URL:
			c.errorf(tagPos, "step %s: together is for form steps; a URL step finishes in the browser, not in its answer, so it is asked alone", v.Name())
		case prev.URL:
			c.errorf(tagPos, "step %s: together cannot join URL step %s, which is asked alone", v.Name(), prev.GoName)
		case step.AskHandler || step.MessageHandler:
			c.errorf(tagPos, "step %s: together cannot have ask=handler or message=handler: the handler would decide before the answers of the round it joins are in", v.Name())
		}
	}
	if step.URL {
		if step.Prefill || step.Fallback == "defaults" || step.Fallback == "arguments" {
			c.errorf(tagPos, "URL step %s: prefill and fallback=defaults|arguments are for forms; a URL step's fallback is error or handler", v.Name())
		}
		return step
	}
	if step.Fallback == "arguments" && !step.Prefill {
		c.errorf(tagPos, "step %s: fallback=arguments needs prefill, so the model can supply the form's properties as arguments", v.Name())
	}
	step.Missing = missingText(form)
	return step
}

// lookupTag is reflect.StructTag.Lookup without the reflect import's
// leniency: it reports whether key is present.
func lookupTag(raw, key string) (string, bool) {
	spec, problems := parseStructTagKey(raw, key)
	if problems {
		return "", false
	}
	return spec, spec != "" || strings.Contains(raw, key+`:""`)
}

// missingText is the tool error of the arguments fallback: each required
// property (or each property, when none is required) with its values.
func missingText(form *Form) string {
	var parts []string
	for pass := 0; pass < 2 && len(parts) == 0; pass++ {
		for _, f := range form.Fields {
			if pass == 0 && !f.Required {
				continue
			}
			text := f.Property + " is required"
			if f.Enum != nil {
				text += ": one of " + f.Enum.list()
			}
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, "; ")
}

// generatedNames lists the package-level identifiers generated for t.
func generatedNames(t *Tool) []string {
	names := []string{t.Name + "Step", t.Name + "Answers", t.Name + "Handler", "Register" + t.Name}
	for _, s := range t.Steps {
		names = append(names, t.Name+"Step"+s.GoName)
	}
	return names
}

// freeNames reports, with a diagnostic each, the identifiers generated for
// t that the package already declares outside elicitgen's files.
func (c *checker) freeNames(pos token.Pos, t *Tool) bool {
	ok := true
	for _, n := range generatedNames(t) {
		obj := c.pkg.Types.Scope().Lookup(n)
		if obj == nil {
			continue
		}
		file := c.fset.File(obj.Pos())
		if file != nil && strings.HasSuffix(file.Name(), generatedSuffix) {
			continue
		}
		c.errorf(pos, "tool %s: elicitgen generates %s, which is already declared at %s; rename one of them", t.MCPName, n, c.relPos(obj.Pos()))
		ok = false
	}
	return ok
}

func validStepKey(k string) bool {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return k != ""
}
