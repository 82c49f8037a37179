package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// The paths of a written test, one subtest each, on each era: every step
// accepted (a URL step signed in; a task tool run as a task on
// 2026-07-28, where it shows progress; a once step's retry replayed and
// refused); each step declined (a URL step's sign-in denied) and
// cancelled; a confirmation accepted with false, which reaches Declined;
// a URL step whose fallback is link, for a client without URL
// elicitation: the link, signed in, and the call again; a client that
// cannot ask: the fallbacks, a preview and its token.

// paths is the body of one era's subtest.
func (g *testGen) paths() []jen.Code {
	t := g.t
	var out []jen.Code
	if t.Task == "required" {
		out = append(out, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Legacy")).Block(
			jen.Comment("2025-11-25 clients get no tasks: a tool that must run as one is refused"),
			g.start(nil),
			jen.Id("c").Dot("Call").Call(jen.Lit(t.MCPName), jen.Id("args")).Dot("WantCode").Call(jen.Id("t"), jen.Lit(-32021)),
			jen.Return()))
	}
	out = append(out, g.subtest("accept", nil, g.acceptPath()))
	for i, s := range t.Steps {
		out = append(out, g.subtest("decline "+s.Key, nil, g.endPath(i, "Decline", "declined")),
			g.subtest("cancel "+s.Key, nil, g.endPath(i, "Cancel", "cancelled")))
		if s.Confirm != "" {
			out = append(out, g.subtest("confirm no "+s.Key, nil, g.endPath(i, "confirm no", "declined")))
		}
		if s.URL && s.Fallback == "link" {
			out = append(out, g.subtest("link "+s.Key, formOnly(), g.linkPath(i)))
		}
	}
	if len(t.Steps) > 0 {
		out = append(out, g.subtest("no one there", jen.Qual(elicittestPath, "NoElicitation").Call(), g.absentPath()))
	}
	return out
}

// formOnly is the capabilities of a client that shows forms, not URLs.
func formOnly() jen.Code {
	return jen.Op("&").Qual(mcpPath, "ClientCapabilities").Values(jen.Id("Elicitation").Op(":").Op("&").Qual(mcpPath, "ElicitationCapabilities").Values(
		jen.Id("Form").Op(":").Op("&").Qual(mcpPath, "FormElicitationCapabilities").Values()))
}

// start starts a client of the test's server on the era, with caps (nil:
// form and URL elicitation), declaring the Tasks extension for a task
// tool.
func (g *testGen) start(caps jen.Code) jen.Code {
	opts := []jen.Code{jen.Id("Era").Op(":").Id("era")}
	if g.t.Task != "" {
		opts = append(opts, jen.Id("Tasks").Op(":").True())
	}
	if caps != nil {
		opts = append(opts, jen.Id("Capabilities").Op(":").Add(caps))
	}
	return jen.Id("c").Op(":=").Qual(elicittestPath, "Start").Call(jen.Id("t"),
		jen.Id(g.server).Call(jen.Id(g.handler).Call(jen.Id("t"))), jen.Op("&").Qual(elicittestPath, "Options").Values(opts...))
}

// subtest is the subtest of one path, on a client of its own.
func (g *testGen) subtest(name string, caps jen.Code, body []jen.Code) jen.Code {
	return jen.Id("t").Dot("Run").Call(jen.Lit(name), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		append([]jen.Code{g.start(caps)}, body...)...))
}

// answer is the script's step for step i: action is Accept (a URL step:
// SignIn), Decline (a URL step: DenySignIn), Cancel, or "confirm no" (a
// confirmation accepted with its boolean false).
func (g *testGen) answer(i int, action string) jen.Code {
	s := g.t.Steps[i]
	c := stepConst(g.t, s)
	var step *jen.Statement
	switch {
	case action == "Accept" && s.URL:
		step = jen.Qual(elicittestPath, "SignIn").Call(c)
	case action == "Accept":
		step = jen.Qual(elicittestPath, "Accept").Call(c, formValue(g.p, s))
	case action == "confirm no":
		step = jen.Qual(elicittestPath, "Accept").Call(c, confirmNoValue(g.p, s))
	case action == "Decline" && s.URL:
		step = jen.Qual(elicittestPath, "DenySignIn").Call(c)
	default:
		step = jen.Qual(elicittestPath, action).Call(c)
	}
	if s.Message != "" && !s.MessageHandler {
		step = step.Dot("Message").Call(jen.Lit(s.Message))
	}
	return jen.Line().Add(step)
}

// script declares script: the steps before step i accepted, then action
// at i; on 2026-07-28 the steps asked in the same round after i (together)
// are left unanswered.
func (g *testGen) script(i int, action string) []jen.Code {
	var steps []jen.Code
	for j := range i {
		steps = append(steps, g.answer(j, "Accept"))
	}
	steps = append(steps, g.answer(i, action))
	if g.t.Steps[i].During {
		return g.duringScript(i, steps)
	}
	steps = append(steps, jen.Line())
	out := []jen.Code{jen.Id("script").Op(":=").Index().Qual(elicittestPath, "Step").Values(steps...)}
	var round []jen.Code
	for _, s := range g.t.Steps[i+1:] {
		if !s.Together {
			break
		}
		round = append(round, jen.Qual(elicittestPath, "Ignore").Call(stepConst(g.t, s)))
	}
	if len(round) > 0 {
		out = append(out, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Modern")).Block(
			jen.Comment("2026-07-28 asks the together steps in the same round"),
			jen.Id("script").Op("=").Append(append([]jen.Code{jen.Id("script")}, round...)...)))
	}
	return out
}

// duringScript ends the script of a path that does not accept during
// step i: a task's Ask waits for every question it asks, so the steps it
// asks with i are accepted, and then the Run stops; in the foreground
// (2025-11-25) every step is asked before the Run, so the rest are
// accepted too.
func (g *testGen) duringScript(i int, steps []jen.Code) []jen.Code {
	j := i + 1
	for ; j < len(g.t.Steps) && g.t.Steps[j].Together; j++ {
		steps = append(steps, g.answer(j, "Accept"))
	}
	out := []jen.Code{jen.Id("script").Op(":=").Index().Qual(elicittestPath, "Step").Values(append(steps, jen.Line())...)}
	var rest []jen.Code
	for ; j < len(g.t.Steps); j++ {
		rest = append(rest, g.answer(j, "Accept"))
	}
	if len(rest) > 0 {
		out = append(out, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Legacy")).Block(
			jen.Comment("in the foreground every step is asked before the Run"),
			jen.Id("script").Op("=").Append(append([]jen.Code{jen.Id("script")}, append(rest, jen.Line())...)...)))
	}
	return out
}

// callScript calls the tool with script, into out.
func (g *testGen) callScript(op string) jen.Code {
	return jen.Id("out").Op(op).Id("c").Dot("Call").Call(jen.Lit(g.t.MCPName), jen.Id("args"), jen.Id("script").Op("..."))
}

// acceptPath accepts every step and wants the handler's result; a task
// runs as a task on 2026-07-28; a once step's retry, replayed, is refused.
func (g *testGen) acceptPath() []jen.Code {
	t := g.t
	var body []jen.Code
	for _, s := range t.Steps {
		if s.AskHandler {
			body = append(body, commentLines(fmt.Sprintf("TODO: drop the %s step if Ask%s skips it for these arguments and answers (the kit fails on a step never asked).", s.Key, s.GoName))...)
		}
	}
	if len(t.Steps) == 0 {
		body = append(body, jen.Id("out").Op(":=").Id("c").Dot("Call").Call(jen.Lit(t.MCPName), jen.Id("args")))
	} else {
		body = append(append(body, g.script(len(t.Steps)-1, "Accept")...), g.callScript(":="))
	}
	body = append(body,
		jen.Comment(`TODO: state the result: out.WantText(t, "...")`),
		wantResult("every step accepted", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()))
	if t.Task != "" {
		body = append(body, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Modern").Op("&&").Id("out").Dot("TaskID").Op("==").Lit("")).Block(
			jen.Id("t").Dot("Errorf").Call(jen.Lit("a client that declares tasks got no task: %s"), jen.Id("out"))),
			jen.Comment(`TODO: state the progress the task shows (none in the foreground): if !slices.Equal(out.Progress, []string{...}) {...}`))
	}
	for _, s := range t.Steps {
		if s.Once && t.Task == "" {
			body = append(body, jen.If(jen.Id("era").Op("==").Qual(elicittestPath, "Modern")).Block(
				jen.Comment("the retry that completed the once step "+s.Key+", sent again, is refused"),
				jen.If(jen.Id("replay").Op(":=").Id("c").Dot("Replay").Call(), jen.Id("replay").Dot("Err").Op("==").Nil()).Block(
					jen.Id("t").Dot("Errorf").Call(jen.Lit("the replayed retry of "+s.Key+" went through: %s"), jen.Id("replay")))))
			break
		}
	}
	return body
}

// commentLines is text as comment lines.
func commentLines(text string) []jen.Code {
	var out []jen.Code
	for _, line := range wrap(text, 64) {
		out = append(out, jen.Comment(line))
	}
	return out
}

// endPath takes action at step i (the steps before accepted) and wants
// the handler's result for it, a normal one that is not the stub's
// placeholder: Declined's or Cancelled's, or what a task's Run does when
// a question it asks is not accepted.
func (g *testGen) endPath(i int, action, what string) []jen.Code {
	s := g.t.Steps[i]
	bad := jen.Id("out").Dot("IsError").Call().Op("||").Add(notPlaceholder("Nothing was done: the " + s.Key + " question was " + what + "."))
	if s.During {
		bad = bad.Op("||").Add(notPlaceholder("Stopped: the " + s.Key))
	}
	label := map[string]string{"Decline": "declined", "Cancel": "cancelled", "confirm no": "answered no"}[action]
	return append(g.script(i, action), g.callScript(":="),
		jen.Commentf(`TODO: state what the tool says when %s is %s: out.WantText(t, "...")`, s.Key, label),
		wantResult(s.Key+" "+label, "the handler's result (a normal one, not the stub's placeholder)", bad))
}

// linkPath is a client without URL elicitation at URL step i (fallback
// link): the call ends with the link; once signed in, the tool is called
// again and goes on.
func (g *testGen) linkPath(i int) []jen.Code {
	s := g.t.Steps[i]
	var before, after []jen.Code
	for j := range g.t.Steps {
		if j < i {
			before = append(before, g.answer(j, "Accept"))
		}
		if j != i {
			after = append(after, g.answer(j, "Accept"))
		}
	}
	fatal := jen.Id("t").Dot("Fatalf").Call(jen.Lit("the "+s.Key+" step gave no link: %s"), jen.Id("out"))
	return []jen.Code{
		jen.Id("out").Op(":=").Id("c").Dot("Call").Call(append([]jen.Code{jen.Lit(g.t.MCPName), jen.Id("args")}, append(before, jen.Line())...)...),
		jen.If(jen.Id("out").Dot("Link").Call().Op("==").Lit("")).Block(fatal),
		jen.Comment("the person opens the link and signs in; the model calls again"),
		jen.Id("c").Dot("SignIn").Call(jen.Id("out").Dot("Link").Call()),
		jen.Id("out").Op("=").Id("c").Dot("Call").Call(append([]jen.Code{jen.Lit(g.t.MCPName), jen.Id("args")}, append(after, jen.Line())...)...),
		jen.Comment(`TODO: state the result: out.WantText(t, "...")`),
		wantResult("signed in through the link", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()),
	}
}

// absentPath calls the tool for a client that cannot ask, and wants what
// the steps' fallbacks make of it: the first step that needs a person
// decides.
func (g *testGen) absentPath() []jen.Code {
	t := g.t
	body := []jen.Code{jen.Id("out").Op(":=").Id("c").Dot("Call").Call(jen.Lit(t.MCPName), jen.Id("args"))}
	for i, s := range t.Steps {
		if s.Fallback == "arguments" || s.Fallback == "defaults" && !defaultsAnswer(s) {
			body = append(body, g.previewTodo(s, i)...)
		}
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
			return append(body, g.previewPath(s)...)
		case "link":
			return append(body, jen.If(jen.Id("out").Dot("Link").Call().Op("==").Lit("")).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("the "+s.Key+" step gave no link: %s"), jen.Id("out"))))
		}
		return append(body, jen.Comment("the "+s.Key+" step cannot be shown: fallback=error"),
			jen.Id("out").Dot("WantCode").Call(jen.Id("t"), jen.Lit(-32021)))
	}
	return append(body,
		jen.Comment(`every step answered by its defaults: TODO: state the result: out.WantText(t, "...")`),
		wantResult("answered by defaults", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()))
}

// previewPath wants the preview of step s and its token, which confirms
// the same call once.
func (g *testGen) previewPath(s *stepModel) []jen.Code {
	g.tokens = true
	name := jen.Lit(g.t.MCPName)
	return []jen.Code{
		jen.Commentf(`TODO: state the preview: out.Result.Content[0] is its text`),
		wantResult(s.Key+" previewed", "the handler's preview, not the stub's placeholder",
			jen.Id("out").Dot("IsError").Call().Op("||").Add(notPlaceholder("This will "+g.t.MCPName+" (describe what confirming "+s.Key+" does)."))),
		jen.Id("token").Op(":=").Id("out").Dot("PreviewToken").Call(),
		jen.If(jen.Id("token").Op("==").Lit("")).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("the preview of "+s.Key+" has no confirmation token: %s"), jen.Id("out"))),
		jen.Id("confirmed").Op(":=").Id("withToken").Call(jen.Id("t"), jen.Id("args"), jen.Id("token")),
		jen.Id("out").Op("=").Id("c").Dot("Call").Call(name, jen.Id("confirmed")),
		jen.Comment(`TODO: state the result of the confirmed call: out.WantText(t, "...")`),
		wantResult("confirmed with the token", "the tool's result, not a tool error", jen.Id("out").Dot("IsError").Call()),
		jen.Comment("the token is good once"),
		jen.Id("c").Dot("Call").Call(name, jen.Id("confirmed")).Dot("WantToolError").Call(jen.Id("t"), jen.Lit("new preview")),
	}
}

// previewTodo says, when a preview step comes after step i (whose
// fallback ends the path without a person), to reach it by hand: with
// arguments that prefill the steps before it.
func (g *testGen) previewTodo(s *stepModel, i int) []jen.Code {
	for _, later := range g.t.Steps[i+1:] {
		if later.Fallback == "preview" {
			return commentLines(fmt.Sprintf("TODO: %s ends this path before the preview of %s: call with arguments that answer %s (prefill) to test the preview, its token (out.PreviewToken()) and the confirmed call (%s).",
				s.Key, later.Key, s.Key, testingDoc))
		}
	}
	return nil
}
