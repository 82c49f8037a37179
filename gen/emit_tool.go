package gen

import (
	"encoding/json"
	"fmt"

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
	body := []jen.Code{jen.Var().Id("out").Id(answersType)}
	for i, s := range t.Steps {
		if s.URL {
			body = append(body, jen.If(jen.Id("a").Index(jen.Lit(i)).Op("!=").Nil()).Block(
				jen.Id("out").Dot(s.GoName).Op("=").Qual(runtimePath, "URLAnswer").Call(jen.Id("a").Index(jen.Lit(i))),
			))
			continue
		}
		body = append(body, jen.If(jen.Id("a").Index(jen.Lit(i)).Op("!=").Nil()).Block(
			jen.Id("v").Op(":=").New(jen.Id(s.Form.Name)),
			jen.Comment("Validated before it was kept; decoded again on every call."),
			jen.If(jen.Id("v").Dot("DecodeElicit").Call(jen.Id("a").Index(jen.Lit(i))).Op("==").Nil()).Block(
				jen.Id("out").Dot(s.GoName).Op("=").Id("v"),
			),
		))
	}
	body = append(body, jen.Return(jen.Id("out")))
	f.Func().Id(convert).Params(jen.Id("a").Qual(runtimePath, "Answers")).Id(answersType).Block(body...)

	// Register.
	prefill := map[string]json.RawMessage{}
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
			jen.Id("Check"): jen.Func().Params(jen.Id("c").Map(jen.String()).Any()).Error().Block(
				jen.Var().Id("v").Id(s.Form.Name),
				jen.Return(jen.Id("v").Dot("DecodeElicit").Call(jen.Id("c"))),
			),
		}
		if s.Message != "" {
			d[jen.Id("Message")] = jen.Lit(s.Message)
		}
		if s.Once {
			d[jen.Id("Once")] = jen.True()
		}
		if s.Prefill {
			props := make([]jen.Code, len(s.Form.Fields))
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.Form.Schema, &schema); err != nil {
				return err
			}
			for j, fd := range s.Form.Fields {
				props[j] = jen.Lit(fd.Property)
				if _, dup := prefill[fd.Property]; dup {
					return fmt.Errorf("tool %s: property %q prefilled by two steps", t.MCPName, fd.Property)
				}
				prefill[fd.Property] = schema.Properties[fd.Property]
			}
			d[jen.Id("Prefill")] = jen.Index().String().Values(props...)
			var needs []jen.Code
			for _, fd := range s.Form.Fields {
				if fd.Required {
					needs = append(needs, jen.Lit(fd.Property))
				}
			}
			if len(needs) == 0 {
				for _, fd := range s.Form.Fields {
					if fd.Default == nil && !fd.Pointer {
						needs = append(needs, jen.Lit(fd.Property))
					}
				}
			}
			d[jen.Id("PrefillNeeds")] = jen.Index().String().Values(needs...)
		}
		steps[i] = jen.Values(d)
	}
	prefillJSON := []byte(nil)
	if len(prefill) > 0 {
		b, err := json.Marshal(prefill)
		if err != nil {
			return err
		}
		prefillJSON = b
	}

	flow := jen.Dict{
		jen.Id("Complete"): jen.Func().Params(ctx(), req(), jen.Id("args").Any(), jen.Id("a").Qual(runtimePath, "Answers")).Add(result()).Block(
			jen.Return(jen.Id("h").Dot("Complete").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a")))),
		),
		jen.Id("Ended"): jen.Func().Params(ctx(), req(), jen.Id("args").Any(), jen.Id("step").Int(), jen.Id("action").String(), jen.Id("a").Qual(runtimePath, "Answers")).Add(result()).Block(
			jen.If(jen.Id("action").Op("==").Qual(runtimePath, "ActionDecline")).Block(
				jen.Return(jen.Id("h").Dot("Declined").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a")), jen.Id(stepType).Call(jen.Id("step")))),
			),
			jen.Return(jen.Id("h").Dot("Cancelled").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a")), jen.Id(stepType).Call(jen.Id("step")))),
		),
	}
	if hasUnavailable {
		flow[jen.Id("Unavailable")] = jen.Func().Params(ctx(), req(), jen.Id("args").Any(), jen.Id("step").Int(), jen.Id("a").Qual(runtimePath, "Answers")).Add(result()).Block(
			jen.Return(jen.Id("h").Dot("Unavailable").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a")), jen.Id(stepType).Call(jen.Id("step")))),
		)
	}
	var msgCases, askCases, linkCases []jen.Code
	for i, s := range t.Steps {
		call := func(method string) jen.Code {
			return jen.Return(jen.Id("h").Dot(method).Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a"))))
		}
		if s.URL {
			linkCases = append(linkCases, jen.Case(jen.Lit(i)).Block(
				jen.Return(jen.Id("h").Dot(s.GoName+"URL").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args").Assert(args.Clone()), jen.Id(convert).Call(jen.Id("a")), jen.Id("token")))))
		}
		if s.MessageHandler {
			msgCases = append(msgCases, jen.Case(jen.Lit(i)).Block(call(s.GoName+"Message")))
		}
		if s.AskHandler {
			askCases = append(askCases, jen.Case(jen.Lit(i)).Block(call("Ask"+s.GoName)))
		}
	}
	hookParams := func() []jen.Code {
		return []jen.Code{ctx(), req(), jen.Id("args").Any(), jen.Id("step").Int(), jen.Id("a").Qual(runtimePath, "Answers")}
	}
	if len(linkCases) > 0 {
		flow[jen.Id("Link")] = jen.Func().Params(append(hookParams(), jen.Id("token").String())...).String().Block(
			jen.Switch(jen.Id("step")).Block(linkCases...), jen.Return(jen.Lit("")))
	}
	if len(msgCases) > 0 {
		flow[jen.Id("Message")] = jen.Func().Params(hookParams()...).String().Block(
			jen.Switch(jen.Id("step")).Block(msgCases...), jen.Return(jen.Lit("")))
	}
	if len(askCases) > 0 {
		flow[jen.Id("Ask")] = jen.Func().Params(hookParams()...).Bool().Block(
			jen.Switch(jen.Id("step")).Block(askCases...), jen.Return(jen.True()))
	}

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
	if prefillJSON != nil {
		prefillArg = jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(prefillJSON)))
	}
	f.Commentf("Register%s adds the %s tool to server, driven by a state machine over", name, t.MCPName)
	f.Comment("multi round-trip requests that calls h's typed methods. opts may be nil.")
	f.Func().Id("Register"+name).Params(
		jen.Id("server").Op("*").Qual(mcpPath, "Server"),
		jen.Id("h").Id(handlerType),
		jen.Id("opts").Op("*").Qual(runtimePath, "ToolOptions"),
	).Block(
		jen.List(jen.Id("base"), jen.Err()).Op(":=").Qual(jsonschemaPath, "For").Types(args.Clone()).Call(jen.Nil()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("elicitgen: tool "+t.MCPName+": %v"), jen.Err()))),
		jen.List(jen.Id("schema"), jen.Err()).Op(":=").Qual(runtimePath, "InputSchema").Call(jen.Id("base"), prefillArg),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit("elicitgen: tool "+t.MCPName+": %v"), jen.Err()))),
		jen.Id("m").Op(":=").Qual(runtimePath, "NewMachine").Call(jen.Lit(t.MCPName), jen.Index().Qual(runtimePath, "Step").Values(steps...), jen.Qual(runtimePath, "Flow").Values(flow), jen.Id("opts")),
		jen.Qual(mcpPath, "AddTool").Call(
			jen.Id("server"),
			jen.Op("&").Qual(mcpPath, "Tool").Values(jen.Dict{
				jen.Id("Name"):        jen.Lit(t.MCPName),
				jen.Id("Description"): jen.Lit(t.Description),
				jen.Id("InputSchema"): jen.Id("schema"),
				jen.Id("Annotations"): jen.Op("&").Qual(mcpPath, "ToolAnnotations").Values(ann),
			}),
			jen.Func().Params(ctx(), req(), jen.Id("args").Add(args.Clone())).Parens(jen.List(jen.Op("*").Qual(mcpPath, "CallToolResult"), jen.Any(), jen.Error())).Block(
				jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("m").Dot("Call").Call(jen.Id("ctx"), jen.Id("req"), jen.Id("args")),
				jen.Return(jen.Id("res"), jen.Nil(), jen.Err()),
			),
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
