package gen

import (
	"fmt"
	"strconv"
	"strings"
)

// renderMarkdown renders the reference for a README or a pull request.
func renderMarkdown(ref *Reference) []byte {
	var b strings.Builder
	b.WriteString("# What the person is asked\n\n")
	b.WriteString("<!-- " + header + " (elicitgen docs) -->\n")
	if len(ref.Packages) == 0 {
		b.WriteString("\nNo tool, prompt or resource is declared.\n")
	}
	for _, p := range ref.Packages {
		fmt.Fprintf(&b, "\n## Package `%s`\n", p.Path)
		for _, d := range p.Declarations {
			mdDecl(&b, d)
		}
	}
	return []byte(b.String())
}

func mdDecl(b *strings.Builder, d RefDecl) {
	fmt.Fprintf(b, "\n### %s `%s`\n\n", d.Kind, d.Name)
	if d.Description != "" {
		b.WriteString(d.Description + "\n\n")
	}
	var facts []string
	if d.MIMEType != "" {
		facts = append(facts, "MIME type `"+d.MIMEType+"`")
	}
	if len(d.Annotations) > 0 {
		facts = append(facts, "annotations: "+strings.Join(d.Annotations, ", "))
	}
	if d.Task != "" {
		task := "runs as a task (" + d.Task + ")"
		if d.Restartable {
			task += ", restartable"
		}
		facts = append(facts, task)
	}
	if len(facts) > 0 {
		b.WriteString(upperFirst(strings.Join(facts, "; ")) + ".\n\n")
	}
	if len(d.Arguments) == 0 {
		b.WriteString("Arguments: none.\n")
	} else {
		b.WriteString("| argument | type | required | description |\n|---|---|---|---|\n")
		for _, a := range d.Arguments {
			desc := a.Description
			if a.From != "" {
				desc = strings.TrimSpace(desc + " (answers step `" + a.From + "`)")
				if a.From == "preview" {
					desc = "the token a preview returned (fallback=preview)"
				}
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", a.Name, a.Type, yesNo(a.Required), mdCell(desc))
		}
	}
	if len(d.Steps) == 0 {
		b.WriteString("\nNo step: nothing is asked.\n")
	}
	for i, s := range d.Steps {
		mdStep(b, i+1, s)
	}
}

func mdStep(b *strings.Builder, n int, s RefStep) {
	fmt.Fprintf(b, "\n#### Step %d: `%s` (%s)\n\n", n, s.Key, s.Mode)
	msg := "set by the handler"
	if !s.MessageByHandler {
		msg = strconv.Quote(s.Message)
	}
	fmt.Fprintf(b, "- Message: %s\n- Asked: %s\n", msg, askedWords(s))
	if s.Once {
		b.WriteString("- Single use (`once`): completing the flow twice is refused\n")
	}
	if s.Confirm != "" {
		fmt.Fprintf(b, "- Confirm: only `%s` = true passes; false is a decline\n", s.Confirm)
	}
	fmt.Fprintf(b, "- Without a person (`fallback=%s`): %s\n", s.Fallback, s.WithoutPerson)
	fmt.Fprintf(b, "- Digest: `%s`\n", s.Digest)
	if len(s.Fields) > 0 {
		b.WriteString("\n| field | title | type | required | default | bounds | format | values |\n|---|---|---|---|---|---|---|---|\n")
		for _, f := range s.Fields {
			def := ""
			if f.Default != nil {
				def = "`" + *f.Default + "`"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", f.Property, mdCell(f.Title), f.Type, yesNo(f.Required),
				mdCell(def), boundsWords(f), f.Format, mdCell(enumWords(f.Enum)))
		}
	}
	b.WriteString("\nWhat each host shows:\n\n")
	for _, h := range s.Hosts {
		fmt.Fprintf(b, "- %s: %s\n", strings.Join(h.Hosts, ", "), h.Shows)
	}
}

// askedWords says when a step is asked.
func askedWords(s RefStep) string {
	w := map[string]string{
		"always":      "always",
		"ask=handler": "when the handler's Ask" + s.Field + " says so (`ask=handler`)",
		"prefill":     "unless the arguments answer it (`prefill`)",
		"during":      "while the task runs, by Run (`during`)",
	}[s.Asked]
	if s.Together {
		w += ", in the same round as the step before (`together`)"
	}
	return w
}

// boundsWords renders a field's bounds: "1 to 10", "at least 1 character".
func boundsWords(f RefField) string {
	num := func(p *float64) string { return strconv.FormatFloat(*p, 'g', -1, 64) }
	cnt := func(p *int64) string { return strconv.FormatInt(*p, 10) }
	var parts []string
	if f.Minimum != nil {
		parts = append(parts, "≥ "+num(f.Minimum))
	}
	if f.Maximum != nil {
		parts = append(parts, "≤ "+num(f.Maximum))
	}
	if f.MinLength != nil {
		parts = append(parts, "length ≥ "+cnt(f.MinLength))
	}
	if f.MaxLength != nil {
		parts = append(parts, "length ≤ "+cnt(f.MaxLength))
	}
	if f.MinItems != nil {
		parts = append(parts, "≥ "+cnt(f.MinItems)+" chosen")
	}
	if f.MaxItems != nil {
		parts = append(parts, "≤ "+cnt(f.MaxItems)+" chosen")
	}
	return strings.Join(parts, ", ")
}

// enumWords renders the values: "`dev` Development, `prod` Production".
func enumWords(vals []RefEnum) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = "`" + v.Value + "`"
		if v.Title != "" {
			parts[i] += " " + v.Title
		}
	}
	return strings.Join(parts, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
