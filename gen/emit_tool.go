package gen

import (
	"github.com/dave/jennifer/jen"
)

const jsonschemaPath = "github.com/google/jsonschema-go/jsonschema"

// emitTool writes a tool's step type, answers struct, handler interface and
// Register function.
func emitTool(f *jen.File, pkg *Package, t *Tool) error {
	e := &formEmitter{pkg: pkg}
	name := t.Name
	stepType := name + "Step"
	answersType := name + "Answers"
	handlerType := name + "Handler"
	args := e.typeExpr(t.Args)
	ctx := func() jen.Code { return jen.Id("ctx").Qual("context", "Context") }
	req := func() jen.Code { return jen.Id("req").Op("*").Qual(mcpPath, "CallToolRequest") }
	result := func() jen.Code {
		return jen.Parens(jen.List(jen.Op("*").Qual(mcpPath, "CallToolResult"), jen.Error()))
	}

	// Step type.
	f.Commentf("%s names a step of the %s tool.", stepType, t.MCPName)
	f.Type().Id(stepType).Int()
	consts := make([]jen.Code, len(t.Steps))
	names := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		consts[i] = jen.Id(stepType + s.GoName).Id(stepType).Op("=").Lit(i)
		names[i] = jen.Case(jen.Lit(i)).Block(jen.Return(jen.Lit(s.Key)))
	}
	f.Const().Defs(consts...)
	f.Comment("String returns the step's key.")
	f.Func().Params(jen.Id("s").Id(stepType)).Id("String").Params().String().Block(
		jen.Switch(jen.Id("s")).Block(names...),
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit(stepType+"(%d)"), jen.Int().Call(jen.Id("s")))),
	)

	// Answers.
	fields := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		if s.URL {
			fields[i] = jen.Id(s.GoName).Op("*").Qual(runtimePath, "URLStep")
		} else {
			fields[i] = jen.Id(s.GoName).Op("*").Id(s.Form.Name)
		}
	}
	f.Commentf("%s holds the answers of the %s tool's steps; a step not asked (yet) is nil.", answersType, t.MCPName)
	f.Type().Id(answersType).Struct(fields...)

	// Handler interface.
	methods := []jen.Code{
		jen.Comment("Complete runs once every step to be asked has been answered."),
		jen.Id("Complete").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType)).Add(result()),
		jen.Comment("Declined runs when the user declined the step: a normal outcome, which ends in a complete result."),
		jen.Id("Declined").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType), jen.Id("step").Id(stepType)).Add(result()),
		jen.Comment("Cancelled runs when the user dismissed the step without choosing."),
		jen.Id("Cancelled").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType), jen.Id("step").Id(stepType)).Add(result()),
	}
	hasUnavailable := false
	for _, s := range t.Steps {
		if s.Fallback == "handler" {
			hasUnavailable = true
		}
	}
	if hasUnavailable {
		methods = append(methods,
			jen.Comment("Unavailable runs when the request cannot show a step whose fallback is handler."),
			jen.Id("Unavailable").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType), jen.Id("step").Id(stepType)).Add(result()))
	}
	for _, s := range t.Steps {
		if s.MessageHandler {
			methods = append(methods,
				jen.Commentf("%sMessage returns the message that asks the %s step.", s.GoName, s.Key),
				jen.Id(s.GoName+"Message").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType)).String())
		}
		if s.AskHandler {
			methods = append(methods,
				jen.Commentf("Ask%s reports whether the %s step is asked at all.", s.GoName, s.Key),
				jen.Id("Ask"+s.GoName).Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType)).Bool())
		}
		if s.URL {
			methods = append(methods,
				jen.Commentf("%sURL returns the link of the %s step: your own connect page carrying token,", s.GoName, s.Key),
				jen.Comment("the opaque flow token (for example https://example.com/connect?flow=TOKEN)."),
				jen.Id(s.GoName+"URL").Params(ctx(), req(), jen.Id("args").Add(args.Clone()), jen.Id("answers").Id(answersType), jen.Id("token").String()).String())
		}
	}
	f.Commentf("%s is what the %s tool's author implements.", handlerType, t.MCPName)
	f.Type().Id(handlerType).Interface(methods...)

	// Answers from the machine's contents.
	convert := "_elicit_" + name + "_answers"
	answers := jen.Dict{}
	for i, s := range t.Steps {
		kept := jen.Id("a").Index(jen.Lit(i))
		if s.URL {
			answers[jen.Id(s.GoName)] = jen.Qual(runtimePath, "URLAnswer").Call(kept)
		} else {
			answers[jen.Id(s.GoName)] = jen.Qual(runtimePath, "Decoded").Types(jen.Id(s.Form.Name)).Call(kept)
		}
	}
	body := []jen.Code{jen.Return(jen.Id(answersType).Values(answers))}
	f.Func().Id(convert).Params(jen.Id("a").Qual(runtimePath, "Answers")).Id(answersType).Block(body...)

	// Register.
	steps := make([]jen.Code, len(t.Steps))
	for i, s := range t.Steps {
		if s.URL {
			d := jen.Dict{
				jen.Id("Key"):      jen.Lit(s.Key),
				jen.Id("Mode"):     jen.Qual(runtimePath, "ModeURL"),
				jen.Id("Fallback"): jen.Qual(runtimePath, fallbackConst(s.Fallback)),
			}
			if s.Message != "" {
				d[jen.Id("Message")] = jen.Lit(s.Message)
			}
			if s.Once {
				d[jen.Id("Once")] = jen.True()
			}
			steps[i] = jen.Values(d)
			continue
		}
		d := jen.Dict{
			jen.Id("Key"):      jen.Lit(s.Key),
			jen.Id("Mode"):     jen.Qual(runtimePath, "ModeForm"),
			jen.Id("Fallback"): jen.Qual(runtimePath, fallbackConst(s.Fallback)),
			jen.Id("Missing"):  jen.Lit(s.Missing),
			jen.Id("Params"):   jen.Id(s.Form.Name).Values().Dot("ElicitParams"),
			jen.Id("Check"):    jen.Qual(runtimePath, "Check").Types(jen.Id(s.Form.Name)),
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
		if s.Prefill {
			d[jen.Id("Prefill")] = jen.Index().String().Values(lits(s.PrefillProps)...)
			d[jen.Id("PrefillNeeds")] = jen.Index().String().Values(lits(s.PrefillNeeds)...)
		}
		steps[i] = jen.Values(d)
	}
	typed := jen.Dict{
		jen.Id("Answers"):   jen.Id(convert),
		jen.Id("Complete"):  jen.Id("h").Dot("Complete"),
		jen.Id("Declined"):  jen.Id("h").Dot("Declined"),
		jen.Id("Cancelled"): jen.Id("h").Dot("Cancelled"),
	}
	if hasUnavailable {
		typed[jen.Id("Unavailable")] = jen.Id("h").Dot("Unavailable")
	}
	hookArgs := []jen.Code{jen.Qual("context", "Context"), jen.Op("*").Qual(mcpPath, "CallToolRequest"), args.Clone(), jen.Id(answersType)}
	perStep := func(field string, extra []jen.Code, ret jen.Code, want func(*ToolStep) bool, method func(*ToolStep) string) {
		var entries []jen.Code
		for _, s := range t.Steps {
			if want(s) {
				entries = append(entries, jen.Id(stepType+s.GoName).Op(":").Id("h").Dot(method(s)))
			}
		}
		if len(entries) == 0 {
			return
		}
		params := append(append([]jen.Code{}, hookArgs...), extra...)
		typed[jen.Id(field)] = jen.Map(jen.Id(stepType)).Func().Params(params...).Add(ret).Values(entries...)
	}
	perStep("Messages", nil, jen.String(), func(s *ToolStep) bool { return s.MessageHandler }, func(s *ToolStep) string { return s.GoName + "Message" })
	perStep("Asks", nil, jen.Bool(), func(s *ToolStep) bool { return s.AskHandler }, func(s *ToolStep) string { return "Ask" + s.GoName })
	perStep("Links", []jen.Code{jen.String()}, jen.String(), func(s *ToolStep) bool { return s.URL }, func(s *ToolStep) string { return s.GoName + "URL" })

	ann := jen.Dict{
		jen.Id("ReadOnlyHint"):   jen.Lit(t.ReadOnly),
		jen.Id("IdempotentHint"): jen.Lit(t.Idempotent),
	}
	if !t.ReadOnly {
		ann[jen.Id("DestructiveHint")] = jen.Qual(runtimePath, "Bool").Call(jen.Lit(t.Destructive))
	}
	if t.OpenWorld {
		ann[jen.Id("OpenWorldHint")] = jen.Qual(runtimePath, "Bool").Call(jen.True())
	}

	prefillArg := jen.Nil()
	if t.PrefillSchema != nil {
		prefillArg = jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(t.PrefillSchema)))
	}
	f.Commentf("Register%s adds the %s tool to server, driven by a state machine over", name, t.MCPName)
	f.Comment("multi round-trip requests that calls h's typed methods. opts may be nil.")
	f.Func().Id("Register"+name).Params(
		jen.Id("server").Op("*").Qual(mcpPath, "Server"),
		jen.Id("h").Id(handlerType),
		jen.Id("opts").Op("*").Qual(runtimePath, "ToolOptions"),
	).Block(
		jen.List(jen.Id("base"), jen.Err()).Op(":=").Qual(jsonschemaPath, "For").Types(args.Clone()).Call(jen.Nil()),
		jen.Id("m").Op(":=").Qual(runtimePath, "NewMachine").Call(jen.Lit(t.MCPName), jen.Index().Qual(runtimePath, "Step").Values(steps...),
			jen.Qual(runtimePath, "Typed").Types(args.Clone(), jen.Id(answersType), jen.Id(stepType)).Values(typed).Dot("Flow").Call(), jen.Id("opts")),
		jen.Qual(runtimePath, "AddTool").Types(args.Clone()).Call(
			jen.Id("server"),
			jen.Op("&").Qual(mcpPath, "Tool").Values(jen.Dict{
				jen.Id("Name"):        jen.Lit(t.MCPName),
				jen.Id("Description"): jen.Lit(t.Description),
				jen.Id("InputSchema"): jen.Qual(runtimePath, "MustInputSchema").Call(jen.Lit(t.MCPName), jen.Id("base"), jen.Err(), prefillArg),
				jen.Id("Annotations"): jen.Op("&").Qual(mcpPath, "ToolAnnotations").Values(ann),
			}),
			jen.Id("m"),
		),
	)
	return nil
}

func fallbackConst(s string) string {
	switch s {
	case "defaults":
		return "FallbackDefaults"
	case "arguments":
		return "FallbackArguments"
	case "handler":
		return "FallbackHandler"
	}
	return "FallbackError"
}

func lits(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = jen.Lit(s)
	}
	return out
}
