package gen

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"
)

// emitTool writes a tool's step type, answers struct, handler interface and
// Register function.
func emitTool(f *jen.File, pkg *pkgModel, t *toolModel) {
	emitStepType(f, t)
	emitAnswers(f, t)
	emitHandler(f, pkg, t)
	if t.Task != "" {
		emitTask(f, t)
	}
	emitAnswersFunc(f, t)
	steps := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		steps[i] = stepValue(s)
	}
	typed := typedMethods(pkg, t)
	f.Commentf("Register%s adds the %s %s to server: the runtime's interpreter runs its", t.Name, t.MCPName, t.Kind)
	f.Comment("step table over multi round-trip requests and calls h's typed methods. opts may be nil.")
	f.Func().Id("Register"+t.Name).Params(
		jen.Id("server").Op("*").Qual(mcpPath, "Server"),
		jen.Id("h").Id(t.Name+"Handler"),
		jen.Id("opts").Op("*").Qual(runtimePath, "ToolOptions"),
	).Block(registerBody(pkg, t, steps, typed)...)
}

// emitStepType writes the step type: a constant per step, and String.
func emitStepType(f *jen.File, t *toolModel) {
	stepType := t.Name + "Step"
	f.Commentf("%s names a step of the %s %s.", stepType, t.MCPName, t.Kind)
	f.Type().Id(stepType).Int()
	consts := make([]jen.Code, len(t.Steps))
	names := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		consts[i] = jen.Id(stepType + s.GoName).Id(stepType).Op("=").Lit(i)
		names[i] = jen.Case(jen.Lit(i)).Block(jen.Return(jen.Lit(s.Key)))
	}
	var stringBody []jen.Code
	if len(t.Steps) > 0 { // a task tool may have none
		f.Const().Defs(consts...)
		stringBody = append(stringBody, jen.Switch(jen.Id("s")).Block(names...))
	}
	stringBody = append(stringBody, jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit(stepType+"(%d)"), jen.Int().Call(jen.Id("s")))))
	f.Comment("String returns the step's key.")
	f.Func().Params(jen.Id("s").Id(stepType)).Id("String").Params().String().Block(stringBody...)
}

// emitAnswers writes the answers struct: a pointer per step.
func emitAnswers(f *jen.File, t *toolModel) {
	fields := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		if s.URL {
			fields[i] = jen.Id(s.GoName).Op("*").Qual(runtimePath, "URLStep")
		} else {
			fields[i] = jen.Id(s.GoName).Op("*").Id(s.Form.Name)
		}
	}
	f.Commentf("%sAnswers holds the answers of the %s %s's steps; a step not asked (yet) is nil.", t.Name, t.MCPName, t.Kind)
	f.Type().Id(t.Name + "Answers").Struct(fields...)
}

// emitHandler writes the handler interface, from t.Methods.
func emitHandler(f *jen.File, pkg *pkgModel, t *toolModel) {
	var methods []jen.Code
	for _, m := range t.Methods {
		for _, line := range methodDoc(t, m) {
			methods = append(methods, jen.Comment(line))
		}
		methods = append(methods, jen.Id(m.Name).Add(methodSignature(pkg, t, m, true)))
	}
	f.Commentf("%sHandler is what the %s %s's author implements.", t.Name, t.MCPName, t.Kind)
	f.Type().Id(t.Name + "Handler").Interface(methods...)
}

// emitAnswersFunc writes the function that types the machine's answers.
func emitAnswersFunc(f *jen.File, t *toolModel) {
	answers := jen.Dict{}
	for i, s := range t.Steps {
		kept := jen.Id("a").Index(jen.Lit(i))
		if s.URL {
			answers[jen.Id(s.GoName)] = impl("URLAnswer").Call(kept)
		} else {
			answers[jen.Id(s.GoName)] = impl("Decoded").Types(jen.Id(s.Form.Name)).Call(kept)
		}
	}
	f.Commentf("%s types the answers the machine keeps for the %s %s.", t.AnswersFunc, t.MCPName, t.Kind)
	f.Func().Id(t.AnswersFunc).Params(jen.Id("a").Qual(implPath, "Answers")).Id(t.Name + "Answers").Block(
		jen.Return(jen.Id(t.Name + "Answers").Values(answers)))
}

// typedMethods is the runtime's typed view of the handler h: the answers
// function, the outcome methods, Run with its task, and each step's own
// methods in a map by step.
func typedMethods(pkg *pkgModel, t *toolModel) jen.Dict {
	stepType := t.Name + "Step"
	typed := jen.Dict{jen.Id("Answers"): jen.Id(t.AnswersFunc)}
	perStep := map[string][]jen.Code{}
	mapType := map[string]jen.Code{}
	for _, m := range t.Methods {
		switch m.Kind {
		case methodComplete, methodDeclined, methodCancelled, methodUnavailable:
			typed[jen.Id(m.Name)] = jen.Id("h").Dot(m.Name)
		case methodRun:
			typed[jen.Id("Tasks")] = jen.Qual(implPath, map[string]string{"optional": "TaskOptional", "required": "TaskRequired"}[t.Task])
			if t.Restartable {
				typed[jen.Id("Restartable")] = jen.True()
			}
			typed[jen.Id("Run")] = jen.Func().Params(
				jen.Id("ctx").Qual("context", "Context"),
				jen.Id("req").Add(requestType(t)),
				jen.Id("t").Qual(runtimePath, "Task"),
				jen.Id("a").Add(argsExpr(pkg, t)),
				jen.Id("ans").Id(t.Name+"Answers"),
			).Parens(jen.List(resultType(t), jen.Error())).Block(
				jen.Return(jen.Id("h").Dot(m.Name).Call(jen.Id("ctx"), jen.Id("req"), jen.Id(t.TaskType()).Values(jen.Id("t")), jen.Id("a"), jen.Id("ans"))),
			)
		default:
			field := map[methodKind]string{methodMessage: "Messages", methodAsk: "Asks", methodURL: "Links", methodPreview: "Previews"}[m.Kind]
			perStep[field] = append(perStep[field], jen.Id(stepType+m.Step.GoName).Op(":").Id("h").Dot(m.Name))
			mapType[field] = jen.Map(jen.Id(stepType)).Func().Add(methodSignature(pkg, t, m, false))
		}
	}
	for field, entries := range perStep {
		typed[jen.Id(field)] = jen.Add(mapType[field]).Values(entries...)
	}
	return typed
}

// registerBody is the body of t's Register function: the machine of its
// step table over the typed handler, added to the server as t's kind.
func registerBody(pkg *pkgModel, t *toolModel, steps []jen.Code, typed jen.Dict) []jen.Code {
	if t.Kind != declTool {
		return registerDecl(pkg, t, steps, typed)
	}
	args := argsExpr(pkg, t)
	ann := jen.Dict{
		jen.Id("ReadOnlyHint"):   jen.Lit(t.ReadOnly),
		jen.Id("IdempotentHint"): jen.Lit(t.Idempotent),
	}
	if !t.ReadOnly {
		ann[jen.Id("DestructiveHint")] = impl("Bool").Call(jen.Lit(t.Destructive))
	}
	if t.OpenWorld {
		ann[jen.Id("OpenWorldHint")] = impl("Bool").Call(jen.True())
	}
	prefillArg := jen.Nil()
	if t.PrefillSchema != nil {
		prefillArg = jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(t.PrefillSchema)))
	}
	return []jen.Code{
		jen.List(jen.Id("base"), jen.Err()).Op(":=").Qual(jsonschemaPath, "For").Types(args.Clone()).Call(jen.Nil()),
		jen.Id("m").Op(":=").Qual(implPath, "NewMachine").Call(jen.Lit(t.MCPName), jen.Index().Qual(implPath, "Step").Values(steps...),
			impl("Typed").Types(args.Clone(), jen.Id(t.Name+"Answers"), jen.Id(t.Name+"Step")).Values(typed).Dot("Flow").Call(), jen.Id("opts")),
		impl("AddTool").Types(args.Clone()).Call(
			jen.Id("server"),
			jen.Op("&").Qual(mcpPath, "Tool").Values(jen.Dict{
				jen.Id("Name"):        jen.Lit(t.MCPName),
				jen.Id("Description"): jen.Lit(t.Description),
				jen.Id("InputSchema"): impl("MustInputSchema").Call(jen.Lit(t.MCPName), jen.Id("base"), jen.Err(), prefillArg),
				jen.Id("Annotations"): jen.Op("&").Qual(mcpPath, "ToolAnnotations").Values(ann),
			}),
			jen.Id("m"),
		),
	}
}

// emitTask writes a task tool's task type: the running task, with a typed
// asker per group of During steps.
func emitTask(f *jen.File, t *toolModel) {
	typ := t.TaskType()
	f.Commentf("%s is the running task of the %s tool: progress and the questions asked while it runs.", typ, t.MCPName)
	f.Type().Id(typ).Struct(jen.Qual(runtimePath, "Task"))
	for _, a := range t.Askers() {
		var results, decoded, idx []jen.Code
		var keys []string
		for _, i := range a.Steps {
			s := t.Steps[i]
			keys = append(keys, s.Key)
			results = append(results, jen.Op("*").Id(s.Form.Name))
			decoded = append(decoded, impl("Decoded").Types(jen.Id(s.Form.Name)).Call(jen.Id("r").Dot("Content").Call(jen.Lit(i))))
			idx = append(idx, jen.Lit(i))
		}
		for _, line := range askerDoc(a, keys) {
			f.Comment(line)
		}
		fails := make([]jen.Code, 0, len(a.Steps)+2)
		for range a.Steps {
			fails = append(fails, jen.Nil())
		}
		fails = append(fails, jen.Lit(""), jen.Err())
		f.Func().Params(jen.Id("t").Id(typ)).Id(a.Name).Params(jen.Id("ctx").Qual("context", "Context")).
			Parens(jen.List(append(results, jen.Qual(runtimePath, "Outcome"), jen.Error())...)).Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("t").Dot("Ask").Call(append([]jen.Code{jen.Id("ctx")}, idx...)...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(fails...)),
			jen.Return(append(decoded, jen.Id("r").Dot("Outcome"), jen.Nil())...),
		)
	}
}

// askerDoc is the doc comment of a task type's asker of keys.
func askerDoc(a asker, keys []string) []string {
	if len(keys) == 1 {
		return []string{
			fmt.Sprintf("%s asks the %s step while the task runs and waits for the answer, which is", a.Name, keys[0]),
			"nil unless the outcome is Accepted. In the foreground, it returns the answer given before Run.",
		}
	}
	return []string{
		fmt.Sprintf("%s asks the %s steps together while the task runs and waits for the", a.Name, joinAnd(keys)),
		"answers, one per step in order, each nil unless the outcome is Accepted. In the foreground,",
		"it returns the answers given before Run.",
	}
}

func fallbackConst(s string) string {
	switch s {
	case "defaults":
		return "FallbackDefaults"
	case "arguments":
		return "FallbackArguments"
	case "handler":
		return "FallbackHandler"
	case "preview":
		return "FallbackPreview"
	case "link":
		return "FallbackLink"
	}
	return "FallbackError"
}

// methodSignature spells a handler method's parameters and results.
// Without named, the parameters are types only (a func type).
func methodSignature(pkg *pkgModel, t *toolModel, m handlerMethod, named bool) *jen.Statement {
	param := func(name string, typ jen.Code) jen.Code {
		if named {
			return jen.Id(name).Add(typ)
		}
		return typ
	}
	params := []jen.Code{
		param("ctx", jen.Qual("context", "Context")),
		param("req", requestType(t)),
		param("args", argsExpr(pkg, t)),
		param("answers", jen.Id(t.Name+"Answers")),
	}
	if m.Kind == methodRun {
		params = slices.Insert(params, 2, param("task", jen.Id(t.TaskType())))
	}
	if t.Kind == declResource {
		params = slices.Delete(params, 2, 3) // a resource has no arguments
	}
	switch m.Kind {
	case methodDeclined, methodCancelled, methodUnavailable:
		params = append(params, param("step", jen.Id(t.Name+"Step")))
	case methodURL:
		params = append(params, param("token", jen.String()))
	}
	sig := jen.Params(params...)
	switch m.Kind {
	case methodMessage, methodURL, methodPreview:
		return sig.String()
	case methodAsk:
		return sig.Bool()
	}
	return sig.Parens(jen.List(resultType(t), jen.Error()))
}

// confirmations names t's confirm steps for the handler's doc comments
// ("the confirm step's confirm"), or "" when it has none.
func confirmations(t *toolModel) string {
	var names []string
	for _, s := range t.Steps {
		if s.Confirm != "" {
			names = append(names, fmt.Sprintf("the %s step's %s", s.Key, s.Confirm))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return joinAnd(names)
}

// methodDoc is the doc comment of a handler method, in the interface and
// in the stub.
func methodDoc(t *toolModel, m handlerMethod) []string {
	switch m.Kind {
	case methodComplete:
		if no := confirmations(t); no != "" {
			return wrap("Complete runs once every step to be asked has been answered: "+no+" only with true (false is a decline).", 90)
		}
		return []string{"Complete runs once every step to be asked has been answered."}
	case methodRun:
		where := "in a task for a client that declares the tasks extension, in the foreground otherwise (where task's askers return the answers given before Run)"
		if t.Task == "required" {
			where = "in a task (a client that does not declare the tasks extension is refused)"
		}
		when := "Run does the tool's work: "
		if slices.ContainsFunc(t.Steps, func(s *stepModel) bool { return !s.During }) {
			when = "Run does the tool's work once the steps without during have been answered: "
		}
		how := ". It reports progress with task.Progress."
		if len(t.Askers()) > 0 {
			how = ". It reports progress with task.Progress and asks the during steps with task's Ask methods."
		}
		return wrap(when+where+how, 90)
	case methodDeclined:
		doc := []string{"Declined runs when the user declined the step: a normal outcome, which ends in a complete result."}
		if len(t.Askers()) > 0 {
			doc = []string{"Declined runs when the user declined a step asked before Run: a normal outcome, which ends in a",
				"complete result. (A during step's decline reaches Run, as its asker's Outcome.)"}
		}
		if no := confirmations(t); no != "" {
			work := "Complete"
			if t.Task != "" {
				work = "Run"
			}
			doc = append(doc, wrap("An answer of false to "+no+" is its decline, and arrives here, never at "+work+".", 90)...)
		}
		return doc
	case methodCancelled:
		if len(t.Askers()) > 0 {
			return []string{"Cancelled runs when the user dismissed a step asked before Run without choosing. (A during",
				"step's cancel reaches Run, as its asker's Outcome.)"}
		}
		return []string{"Cancelled runs when the user dismissed the step without choosing."}
	case methodUnavailable:
		return []string{"Unavailable runs when the request cannot show a step whose fallback is handler."}
	case methodMessage:
		return []string{fmt.Sprintf("%s returns the message that asks the %s step.", m.Name, m.Step.Key)}
	case methodAsk:
		return []string{fmt.Sprintf("%s reports whether the %s step is asked at all.", m.Name, m.Step.Key)}
	case methodPreview:
		return []string{
			fmt.Sprintf("%s says what confirming the %s step will do, for a client that cannot", m.Name, m.Step.Key),
			"show it: the call completes with this preview and a single-use confirmation token.",
		}
	}
	return []string{
		fmt.Sprintf("%s returns the link of the %s step: your own connect page carrying token,", m.Name, m.Step.Key),
		"the opaque flow token (for example https://example.com/connect?flow=TOKEN).",
	}
}

// stepValue is the step table's entry of s: a URL step's, or a form
// step's with its options.
func stepValue(s *stepModel) jen.Code {
	if s.URL {
		d := jen.Dict{
			jen.Id("Key"):      jen.Lit(s.Key),
			jen.Id("Digest"):   jen.Lit(s.Digest),
			jen.Id("Mode"):     impl("ModeURL"),
			jen.Id("Fallback"): jen.Qual(implPath, fallbackConst(s.Fallback)),
		}
		if s.Message != "" {
			d[jen.Id("Message")] = jen.Lit(s.Message)
		}
		if s.Once {
			d[jen.Id("Once")] = jen.True()
		}
		return jen.Values(d)
	}
	d := jen.Dict{
		jen.Id("Key"):      jen.Lit(s.Key),
		jen.Id("Digest"):   jen.Lit(s.Digest),
		jen.Id("Mode"):     impl("ModeForm"),
		jen.Id("Fallback"): jen.Qual(implPath, fallbackConst(s.Fallback)),
		jen.Id("Missing"):  jen.Lit(s.Missing),
		jen.Id("Params"):   jen.Id(s.Form.Name).Values().Dot("ElicitParams"),
		jen.Id("Check"):    impl("Check").Types(jen.Id(s.Form.Name)),
	}
	if s.Message != "" {
		d[jen.Id("Message")] = jen.Lit(s.Message)
	}
	if s.Once {
		d[jen.Id("Once")] = jen.True()
	}
	if s.Together {
		d[jen.Id("Together")] = jen.True()
	}
	if s.During {
		d[jen.Id("During")] = jen.True()
	}
	if s.Confirm != "" {
		d[jen.Id("Confirm")] = jen.Lit(s.Confirm)
	}
	if s.Accept != "" {
		d[jen.Id("Accept")] = jen.Map(jen.String()).Any().Values(jen.Dict{jen.Lit(s.Accept): jen.True()})
	}
	if s.Prefill {
		d[jen.Id("Prefill")] = jen.Index().String().Values(lits(s.PrefillProps)...)
		d[jen.Id("PrefillNeeds")] = jen.Index().String().Values(lits(s.PrefillNeeds)...)
	}
	return jen.Values(d)
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
	stepList := jen.Index().Qual(implPath, "Step").Values(steps...)
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
			jen.Id("m").Op(":=").Qual(implPath, "NewPromptMachine").Call(jen.Lit(t.MCPName), stepList,
				impl("TypedPrompt").Types(args.Clone(), jen.Id(t.Name+"Answers"), jen.Id(t.Name+"Step")).Values(typed), jen.Id("opts")),
			impl("AddPrompt").Types(args.Clone()).Call(jen.Id("server"), jen.Op("&").Qual(mcpPath, "Prompt").Values(prompt), jen.Id("m")),
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
		jen.Id("m").Op(":=").Qual(implPath, "NewResourceMachine").Call(jen.Lit(t.MCPName), stepList,
			impl("TypedResource").Types(jen.Id(t.Name+"Answers"), jen.Id(t.Name+"Step")).Values(typed), jen.Id("opts")),
		jen.Qual(implPath, add).Call(jen.Id("server"), jen.Op("&").Qual(mcpPath, typ).Values(res), jen.Id("m")),
	}
}
