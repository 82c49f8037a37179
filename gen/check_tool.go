package gen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/elicitgen/elicitgen/internal/contract"
)

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
	if s.Fallback == "link" {
		c.errorf(where.fallback, "step %s of %s %s: fallback=link is for tools (the link is a tool's result); use fallback=error or fallback=handler", s.GoName, t.Kind, t.MCPName)
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

type pendingTool struct {
	file *fileModel
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
}

// resolveTools checks the package's tool declarations against its forms.
func (c *checker) resolveTools(p *pkgModel) {
	forms := map[string]*formModel{}
	for _, f := range p.Files {
		for _, form := range f.Forms {
			forms[form.Name] = form
		}
	}
	for _, pt := range c.tools {
		if tool := c.checkTool(pt, forms); tool != nil {
			pt.file.Tools = append(pt.file.Tools, tool)
		}
	}
	c.tools, c.declared = nil, nil
	files := p.Files[:0]
	for _, f := range p.Files {
		if len(f.Forms) > 0 || len(f.Tools) > 0 {
			files = append(files, f)
		}
	}
	p.Files = files
}

// checkTool checks a tool, prompt or resource declaration against the
// package's forms: its directives, Args, steps and the rules between them,
// and the names it makes. It returns nil when the declaration cannot be
// generated.
func (c *checker) checkTool(pt pendingTool, forms map[string]*formModel) *toolModel {
	ts := pt.spec
	tool := &toolModel{Name: ts.Name.Name, Description: docText(pt.doc, ts.Name.Name)}
	if !c.declName(pt, tool) {
		return nil
	}
	c.taskDirective(pt, tool)
	c.toolAnnotations(pt, tool)
	st, ok := ts.Type.(*ast.StructType)
	if !ok || (ts.TypeParams != nil && len(ts.TypeParams.List) > 0) {
		c.errorf(ts.Name.Pos(), "tool declaration %s must be a non-generic struct type", ts.Name.Name)
		return nil
	}
	obj, _ := c.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil
	}
	places := c.checkFields(tool, st, obj.Type().Underlying().(*types.Struct), forms)
	what := tool.Kind.String() + " " + tool.MCPName // "tool deploy", "prompt summary", "resource notes://{id}"
	if tool.Args == nil && tool.Kind == declTool {
		c.errorf(ts.Name.Pos(), "tool %s has no Args field: declare the argument struct as a field named Args (struct{} for none)", tool.MCPName)
		return nil
	}
	// A malformed //elicit:task is reported already: no more about it.
	taskMarked := directiveComment(pt.doc, directiveTask) != nil
	c.checkDuring(tool, places, taskMarked)
	// A tool may ask nothing (a sync tool registered beside the ones that
	// ask, with the same typed handler); a prompt or resource that asks
	// nothing needs no elicitgen.
	if len(tool.Steps) == 0 && !taskMarked && tool.Kind != declTool {
		c.errorf(ts.Name.Pos(), "%s has no steps: add a field whose type is a form", what)
		return nil
	}
	c.checkRounds(ts.Name.Pos(), tool, places)
	if !c.checkPrefill(tool, places) {
		return nil
	}
	if tool.Kind == declPrompt {
		promptPrefillArgs(tool)
	}
	if !c.freeNames(ts.Name.Pos(), tool) || !c.checkMethods(tool, places) {
		return nil
	}
	return tool
}

// checkFields checks the fields of a declaration's struct: Args, and the
// steps, each with its key unique. It returns the places of the steps.
func (c *checker) checkFields(tool *toolModel, st *ast.StructType, tstruct *types.Struct, forms map[string]*formModel) []stepAt {
	what := tool.Kind.String() + " " + tool.MCPName
	keys := map[string]bool{}
	var places []stepAt // of tool.Steps
	for _, sf := range structFields(st, tstruct) {
		if sf.v.Name() == "Args" {
			c.declArgs(tool, sf.v, sf.pos)
			continue
		}
		if almostArgs(sf) {
			// Checked as the Args it almost is: one problem, not two.
			name := sf.v.Name()
			c.fixf(sf.pos, Edit{Pos: sf.pos, End: sf.pos + token.Pos(len(name)), Text: "Args"},
				"field %s of %s: did you mean Args? The argument struct is the field named Args", name, what)
			c.declArgs(tool, sf.v, sf.pos)
			continue
		}
		var prev *stepModel // the step before, for together
		if n := len(tool.Steps); n > 0 {
			prev = tool.Steps[n-1]
		}
		step, where := c.checkStep(what, sf, forms, prev)
		if step == nil {
			continue
		}
		c.declStep(tool, step, where)
		if keys[step.Key] {
			c.errorf(sf.pos, "step key %q used twice in %s", step.Key, what)
			continue
		}
		keys[step.Key] = true
		tool.Steps = append(tool.Steps, step)
		places = append(places, where)
	}
	return places
}

// almostArgs reports whether sf, untagged, is named as a tool's argument
// struct is in other words (Arguments, arg...): a misspelt Args.
func almostArgs(sf structField) bool {
	if hasElicitKey(sf.tag) || sf.af == nil || len(sf.af.Names) == 0 {
		return false
	}
	switch strings.ToLower(sf.v.Name()) {
	case "args", "arg", "argument", "arguments":
		return true
	}
	return false
}

// checkRounds checks what the steps of a tool make of its rounds: not
// more than a call takes, and once only on the last step.
func (c *checker) checkRounds(pos token.Pos, tool *toolModel, places []stepAt) {
	what := tool.Kind.String() + " " + tool.MCPName
	rounds := 0
	for _, s := range tool.Steps {
		if !s.Together {
			rounds++
		}
	}
	if rounds > contract.DefaultMaxRounds {
		c.errorf(pos, "%s asks %d rounds of questions (%d steps); a call takes at most %d (MRTR clients stop after 10 attempts): merge steps into fewer forms, or ask some together",
			what, rounds, len(tool.Steps), contract.DefaultMaxRounds)
	}
	for i, s := range tool.Steps[:max(len(tool.Steps)-1, 0)] {
		if s.Once {
			c.errorf(places[i].once, "%s: once belongs on the final step (it makes completing the flow single use), not on %s", what, s.GoName)
		}
	}
}

// checkMethods gives tool its handler's method set, and reports two
// methods of one name.
func (c *checker) checkMethods(tool *toolModel, places []stepAt) bool {
	tool.Methods = handlerMethods(tool)
	byName := map[string]int{}
	for i, m := range tool.Methods {
		if j, dup := byName[m.Name]; dup {
			c.errorf(places[slices.Index(tool.Steps, m.Step)].field, "%s %s: the handler would need two methods named %s (%s): rename a step", tool.Kind, tool.MCPName, m.Name, methodOwners(tool.Methods[j], m))
			return false
		}
		byName[m.Name] = i
	}
	return true
}

// methodOwners names what two methods of one name are for.
func methodOwners(a, b handlerMethod) string {
	owner := func(m handlerMethod) string {
		if m.Step == nil {
			return "the handler's own " + m.Name
		}
		return "step " + m.Step.GoName
	}
	return owner(a) + " and " + owner(b)
}

// stepAt holds the positions of a step that its tool's rules point at.
type stepAt struct {
	field, once, prefill, fallback, during, together token.Pos
}

func (c *checker) checkStep(decl string, sf structField, forms map[string]*formModel, prev *stepModel) (*stepModel, stepAt) {
	v, pos := sf.v, sf.pos
	form, isURL := stepType(v.Type(), c.pkg.Types, forms)
	if form == nil && !isURL {
		c.errorf(pos, "step %s of %s: its type must be a form declared in package %s, or elicitrt.URLStep", v.Name(), decl, c.pkg.Types.Name())
		return nil, stepAt{}
	}
	t, problems := readTag(sf.tag)
	place := c.placeTag(sf.af, pos, t)
	spec, more := parseStepTag(t)
	for _, p := range append(problems, more...) {
		c.fixf(place.at(p.off), place.edit(p.fix), "%s", p.msg)
	}
	at := func(key string) token.Pos { return place.opt(spec.at, key) }
	step := &stepModel{
		GoName: v.Name(), Key: strings.ToLower(v.Name()), Form: form, URL: isURL,
		Message: spec.Message, MessageHandler: spec.MessageHandler, AskHandler: spec.AskHandler,
		Prefill: spec.Prefill, Once: spec.Once, Together: spec.Together, During: spec.During, Fallback: cmp.Or(spec.Fallback, "error"),
		Where: c.fset.Position(pos),
	}
	where := stepAt{field: pos, once: at("once"), prefill: at("prefill"), fallback: at("fallback"), during: at("during"), together: at("together")}
	if spec.Key != "" {
		step.Key = spec.Key
	}
	if !validStepKey(step.Key) {
		c.errorf(place.at(t.nameOff), "step key %q: use letters, digits, _ and - (a dot would collide with the keys of repeated questions)", step.Key)
	}
	if step.Message == "" && !step.MessageHandler {
		c.errorf(place.tag(), "step %s of %s has no message: message=TEXT or message=handler", v.Name(), decl)
	}
	c.checkTogether(step, prev, at("together"))
	c.checkOnce(step, spec, at)
	if step.Fallback == "preview" {
		c.checkPreview(step, form, v, at("fallback"))
	}
	if spec.Confirm {
		c.checkConfirm(step, form, spec, at)
	}
	if step.URL {
		if step.Prefill || step.Fallback == "defaults" || step.Fallback == "arguments" {
			key := "prefill"
			if !step.Prefill {
				key = "fallback"
			}
			c.errorf(at(key), "URL step %s: prefill and fallback=defaults|arguments are for forms; a URL step's fallback is error, handler or link", v.Name())
		}
		return step, where
	}
	if step.Fallback == "link" {
		c.errorf(at("fallback"), "step %s: fallback=link is for URL steps (the result carries the step's link); a form's fallback is error, defaults, arguments, handler or preview", v.Name())
	}
	if step.Fallback == "arguments" && !step.Prefill {
		c.errorf(at("fallback"), "step %s: fallback=arguments needs prefill, so the model can supply the form's properties as arguments", v.Name())
	}
	step.Missing = missingText(form)
	if step.Prefill {
		prefillProps(step, form)
	}
	return step, where
}

// stepType reads the type of a step: a form of package pkg, or
// elicitrt.URLStep; neither when form is nil and isURL false.
func stepType(t types.Type, pkg *types.Package, forms map[string]*formModel) (form *formModel, isURL bool) {
	named, _ := types.Unalias(t).(*types.Named)
	if named == nil {
		return nil, false
	}
	obj := named.Obj()
	if obj.Pkg() == pkg {
		form = forms[obj.Name()]
	}
	return form, obj.Pkg() != nil && obj.Pkg().Path() == contract.URLStepPackage && obj.Name() == contract.URLStepType
}

// checkTogether checks the together option of step, which joins the round
// of prev (nil for the first step); at is the option's position.
func (c *checker) checkTogether(step, prev *stepModel, at token.Pos) {
	if !step.Together {
		return
	}
	switch {
	case prev == nil:
		c.errorf(at, "step %s: together joins the round of the step before it, and it is the first step", step.GoName)
	case step.URL:
		c.errorf(at, "step %s: together is for form steps; a URL step finishes in the browser, not in its answer, so it is asked alone", step.GoName)
	case prev.URL:
		c.errorf(at, "step %s: together cannot join URL step %s, which is asked alone", step.GoName, prev.GoName)
	case step.AskHandler || step.MessageHandler:
		c.errorf(at, "step %s: together cannot have ask=handler or message=handler: the handler would decide before the answers of the round it joins are in", step.GoName)
	}
}

// checkOnce checks a once step: a confirmation, which only a person
// answers.
func (c *checker) checkOnce(step *stepModel, spec stepSpec, at func(string) token.Pos) {
	if !step.Once {
		return
	}
	if step.Prefill {
		c.errorf(at("prefill"), "step %s: once marks a confirmation that must be asked, and prefill would let the tool's arguments answer it without asking: drop prefill", step.GoName)
	}
	if spec.Fallback == "defaults" {
		c.errorf(at("fallback"), "step %s: once marks a confirmation that must be asked, and fallback=defaults would answer it with the form's defaults when the client cannot show it: use fallback=error (the default) or fallback=handler", step.GoName)
	}
}

// prefillProps lists the properties of form that a prefill step reads from
// the arguments, and those it needs to skip the question.
func prefillProps(step *stepModel, form *formModel) {
	for _, fd := range form.Fields {
		step.PrefillProps = append(step.PrefillProps, fd.Property)
		if fd.Required {
			step.PrefillNeeds = append(step.PrefillNeeds, fd.Property)
		}
	}
	if len(step.PrefillNeeds) == 0 {
		for _, fd := range form.Fields {
			if fd.Default == nil && !fd.Pointer {
				step.PrefillNeeds = append(step.PrefillNeeds, fd.Property)
			}
		}
	}
}

// checkDuring checks the during steps of a tool: only on a task tool, only
// form steps, never once, prefill or fallback=preview (those belong before
// the work starts), all after the steps without during, and together only
// with a during step before.
func (c *checker) checkDuring(tool *toolModel, places []stepAt, taskMarked bool) {
	what := tool.Kind.String() + " " + tool.MCPName
	firstDuring := -1
	for i, s := range tool.Steps {
		at := places[i]
		if !s.During {
			if firstDuring >= 0 {
				c.errorf(at.field, "%s: step %s is asked before the task starts, and comes after step %s, which is asked while it runs (during): put every during step after the steps without during", what, s.GoName, tool.Steps[firstDuring].GoName)
				firstDuring = -2 // reported once
			}
			continue
		}
		if firstDuring == -1 {
			firstDuring = i
		}
		if !taskMarked {
			if tool.Kind == declTool {
				c.errorf(at.during, "step %s: during asks while a task runs, and %s is no task: add //elicit:task optional or //elicit:task required next to //elicit:tool %s, or drop during", s.GoName, what, tool.MCPName)
			} else {
				c.errorf(at.during, "step %s: during is for tools marked //elicit:task; a %s never runs as a task", s.GoName, tool.Kind)
			}
		}
		if s.URL {
			c.errorf(at.during, "URL step %s: during is for form steps; a URL step cannot be asked while the task runs: ask it before the task starts (drop during)", s.GoName)
		}
		if s.Once {
			c.errorf(at.during, "step %s: during cannot be once: a confirmation belongs before the work starts; drop during (or once)", s.GoName)
		}
		if s.Fallback == "preview" {
			c.errorf(at.during, "step %s: during cannot have fallback=preview: a preview confirms before the work starts; drop during", s.GoName)
		} else if s.Confirm != "" {
			c.errorf(at.during, "step %s: during cannot have confirm: a confirmation belongs before the work starts (and Run reads its asker's answer itself); drop during, or confirm", s.GoName)
		}
		if s.Prefill {
			c.errorf(at.during, "step %s: during cannot have prefill: a step asked while the task runs is answered by the user, never from the arguments (read before the task starts); drop prefill, or during", s.GoName)
		}
		if s.Together && i > 0 && !tool.Steps[i-1].During {
			c.errorf(at.together, "step %s: together joins the step before it, %s, which is asked before the task starts: a during step joins only a during step", s.GoName, tool.Steps[i-1].GoName)
		}
	}
}

// checkPreview checks a step whose fallback is preview: a confirmation
// (once) whose form is one required boolean, which a confirmation token
// sets to true.
func (c *checker) checkPreview(step *stepModel, form *formModel, v *types.Var, at token.Pos) {
	switch {
	case !step.Once:
		c.errorf(at, "step %s: fallback=preview is for a confirmation: add once (the token it gives completes the flow once)", v.Name())
	case step.URL:
		c.errorf(at, "URL step %s: fallback=preview is for a confirmation form; a URL step's fallback is error, handler or link", v.Name())
	case len(form.Fields) != 1 || !form.Fields[0].Required || form.Fields[0].Kind != kindBool:
		c.errorf(at, "step %s: fallback=preview confirms with a token, which answers a form of one required boolean; form %s is not one (give it a single field such as Confirm bool `elicit:\"confirm,required\"`)", v.Name(), form.Name)
	default:
		step.Accept = form.Fields[0].Property
		step.Confirm = step.Accept // the token says yes; a form's false is a decline
	}
}

// checkConfirm checks a confirm step: a form whose one required field is
// a boolean, which only true answers, and which only a person answers (no
// prefill, no fallback=defaults); during is checked with the during rules.
func (c *checker) checkConfirm(step *stepModel, form *formModel, spec stepSpec, at func(string) token.Pos) {
	if step.URL {
		c.errorf(at("confirm"), "URL step %s: confirm is for a confirmation form whose one required field is a boolean; a URL step has no answer to say no with", step.GoName)
		return
	}
	var required []*fieldModel
	for _, fd := range form.Fields {
		if fd.Required {
			required = append(required, fd)
		}
	}
	if len(required) != 1 || required[0].Kind != kindBool {
		c.errorf(at("confirm"), "step %s: confirm needs a form whose one required field is a boolean (only true confirms, false declines), and %s: ask with a form such as struct{ Confirm bool `elicit:\"confirm,required\"` }",
			step.GoName, requiredText(form, required))
		return
	}
	step.Confirm = required[0].Property
	if step.Prefill {
		c.errorf(at("prefill"), "step %s: confirm marks a confirmation that must be asked, and prefill would let the tool's arguments answer it without asking: drop prefill", step.GoName)
	}
	if spec.Fallback == "defaults" {
		c.errorf(at("fallback"), "step %s: confirm marks a confirmation that must be asked, and fallback=defaults would answer it for the user when the client cannot show it: use fallback=error (the default), fallback=handler or, with once, fallback=preview", step.GoName)
	}
}

// requiredText says what required fields form has, for a confirm error.
func requiredText(form *formModel, required []*fieldModel) string {
	switch len(required) {
	case 0:
		return fmt.Sprintf("form %s has no required field", form.Name)
	case 1:
		return fmt.Sprintf("the required field of form %s, %s, is not a boolean", form.Name, required[0].Property)
	}
	names := make([]string, len(required))
	for i, fd := range required {
		names[i] = fd.Property
	}
	return fmt.Sprintf("form %s has %d required fields (%s)", form.Name, len(required), strings.Join(names, ", "))
}

// checkPrefill finds the properties that two steps prefill, or that a step
// prefills and an argument also names (the input schema has one property
// of each name), and computes the tool's prefill schema.
func (c *checker) checkPrefill(tool *toolModel, places []stepAt) bool {
	args := argumentNames(tool.Args)
	argsName := types.TypeString(tool.Args, types.RelativeTo(c.pkg.Types))
	by := map[string]int{} // property → index of the step that prefills it
	props := map[string]json.RawMessage{}
	ok := true
	for i, s := range tool.Steps {
		if !s.Prefill || s.Form == nil { // a URL step's prefill is reported already
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.Form.Schema, &schema); err != nil {
			panic(fmt.Sprintf("elicitgen: the schema of %s does not parse: %v", s.Form.Name, err)) // buildSchema writes JSON
		}
		for _, p := range s.PrefillProps {
			if j, dup := by[p]; dup {
				c.errorf(places[i].prefill, "step %s of %s %s prefills property %q, which step %s (%s) prefills too: an argument can answer one step only; rename the property in one of the forms, or drop one prefill",
					s.GoName, tool.Kind, tool.MCPName, p, tool.Steps[j].GoName, c.relPos(places[j].field))
				ok = false
				continue
			}
			if f, dup := args[p]; dup {
				c.errorf(places[i].prefill, "step %s of %s %s prefills property %q, which is also the argument of field %s of %s: the input schema has one property of each name; rename the argument or the form's property",
					s.GoName, tool.Kind, tool.MCPName, p, f, argsName)
				ok = false
				continue
			}
			by[p] = i
			props[p] = schema.Properties[p]
		}
	}
	if i := slices.IndexFunc(tool.Steps, func(s *stepModel) bool { return s.Accept != "" }); i >= 0 {
		if f, dup := args[contract.PreviewTokenArgument]; dup {
			c.errorf(places[i].fallback, "step %s of tool %s: fallback=preview adds the argument %q, which is also field %s of %s: rename that field",
				tool.Steps[i].GoName, tool.MCPName, contract.PreviewTokenArgument, f, argsName)
			ok = false
		}
		token, err := json.Marshal(map[string]string{"type": "string", "description": contract.PreviewTokenDescription})
		if err != nil {
			panic(err)
		}
		props[contract.PreviewTokenArgument] = token
	}
	if ok && len(props) > 0 {
		b, err := json.Marshal(props) // map keys sorted: deterministic
		if err != nil {
			panic(err)
		}
		tool.PrefillSchema = b
	}
	return ok
}

// argumentNames maps the JSON property names of an argument struct, as
// encoding/json and jsonschema.For name them, to their Go fields.
func argumentNames(t types.Type) map[string]string {
	names := map[string]string{}
	if t == nil { // a prompt without arguments
		return names
	}
	if st, ok := types.Unalias(t).Underlying().(*types.Struct); ok {
		eachArgument(st, 0, func(f *types.Var, name string, _ reflect.StructTag) {
			if _, dup := names[name]; !dup {
				names[name] = f.Name()
			}
		})
	}
	return names
}

// eachArgument calls do for each exported field of an argument struct that
// encoding/json and jsonschema.For make a property, with its JSON name and
// tag, in order; the fields of an embedded struct without a JSON name are
// its own (at most 8 deep).
func eachArgument(st *types.Struct, depth int, do func(f *types.Var, name string, tag reflect.StructTag)) {
	for i := range st.NumFields() {
		f := st.Field(i)
		name, skip := jsonFieldName(st.Tag(i))
		if skip {
			continue
		}
		if f.Embedded() && name == "" {
			ft := types.Unalias(f.Type())
			if p, ok := ft.(*types.Pointer); ok {
				ft = types.Unalias(p.Elem())
			}
			if inner, ok := ft.Underlying().(*types.Struct); ok && depth < 8 {
				eachArgument(inner, depth+1, do)
				continue
			}
		}
		if f.Exported() {
			do(f, cmp.Or(name, f.Name()), reflect.StructTag(st.Tag(i)))
		}
	}
}

// missingText is the tool error of the arguments fallback: each required
// property (or each property, when none is required) with its values.
func missingText(form *formModel) string {
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

// freeNames reports, with a diagnostic each, the identifiers generated for
// t that the package already declares outside elicitgen's files.
func (c *checker) freeNames(pos token.Pos, t *toolModel) bool {
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
		c.errorf(pos, "%s %s: elicitgen generates %s, which is already declared at %s; rename one of them", t.Kind, t.MCPName, n, c.relPos(obj.Pos()))
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
