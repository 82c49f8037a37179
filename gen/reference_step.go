package gen

import (
	"bytes"
	"cmp"
	"os"
	"strconv"
	"strings"

	"github.com/elicitgen/elicitgen/internal/contract"
)

func refStep(t *toolModel, s *stepModel) RefStep {
	r := RefStep{Key: s.Key, Field: s.GoName, Mode: "form", Message: s.Message, MessageByHandler: s.MessageHandler,
		Asked: "always", Together: s.Together, Once: s.Once, Confirm: s.Confirm, Fallback: cmp.Or(s.Fallback, "error"), Digest: s.Digest}
	if s.URL {
		r.Mode = "url"
	}
	switch {
	case s.During:
		r.Asked = "during"
	case s.AskHandler:
		r.Asked = "ask=handler"
	case s.Prefill:
		r.Asked = "prefill"
	}
	if s.Form != nil {
		for _, f := range s.Form.Fields {
			r.Fields = append(r.Fields, refField(f))
		}
	}
	r.WithoutPerson = withoutPerson(t, s)
	r.Hosts = hostNotes(s, r.Fields)
	return r
}

// fieldType names a property's type as the reference does.
func fieldType(f *fieldModel) string {
	return [...]string{kindString: "string", kindBool: "boolean", kindInteger: "integer", kindNumber: "number",
		kindEnum: "enum", kindMulti: "multi-select", kindTime: "string"}[f.Kind]
}

func refField(f *fieldModel) RefField {
	r := RefField{Property: f.Property, Title: f.Title, Description: f.Description, Type: fieldType(f), Format: f.Format, Required: f.Required}
	if f.Default != nil {
		r.Default = &f.Default.Raw
	}
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	switch f.Kind {
	case kindInteger:
		if f.HasMin {
			r.Minimum = f64(float64(f.MinInt))
		}
		if f.HasMax {
			r.Maximum = f64(float64(f.MaxInt))
		}
	case kindNumber:
		if f.HasMin {
			r.Minimum = f64(f.MinNum)
		}
		if f.HasMax {
			r.Maximum = f64(f.MaxNum)
		}
	case kindString:
		if f.HasMin {
			r.MinLength = i64(f.MinInt)
		}
		if f.HasMax {
			r.MaxLength = i64(f.MaxInt)
		}
	case kindMulti:
		if f.HasMin {
			r.MinItems = i64(f.MinInt)
		}
		if f.HasMax {
			r.MaxItems = i64(f.MaxInt)
		}
	}
	if f.Enum != nil {
		for _, v := range f.Enum.Values {
			e := RefEnum{Value: v.Value}
			if f.Enum.Titled {
				e.Title = v.Title
			}
			r.Enum = append(r.Enum, e)
		}
	}
	return r
}

// withoutPerson is what the model gets at step s when the request cannot
// show it (internal/machine; docs/reference/grammar.md, fallback=).
func withoutPerson(t *toolModel, s *stepModel) string {
	var pre string
	if s.Prefill && len(s.PrefillNeeds) > 0 {
		pre = "answered from the arguments when the model passes " + joinAnd(quoteAll(s.PrefillNeeds)) + "; otherwise "
	}
	mode := "form"
	if s.URL {
		mode = "url"
	}
	var what string
	switch s.Fallback {
	case "defaults":
		what = "answered with the form's defaults" + defaultsList(s.Form)
	case "arguments":
		what = "a tool error: " + s.Missing
	case "handler":
		what = "the handler's Unavailable writes the result"
	case "preview":
		what = "the call completes with the handler's Preview" + s.GoName + " text and a confirmation_token; calling " + t.MCPName +
			" again with the same arguments and the token answers " + s.Confirm + " = true; not calling again declines"
	case "link":
		what = "the call completes with the message, the link on a line of its own, and \"" + contract.LinkResultText + "\"; the next call goes on once the person finished in the browser"
	default:
		what = "error -32021 \"" + contract.MissingModeMessage(mode) + "\", data.requiredCapabilities {\"elicitation\":{\"" + mode + "\":{}}}"
	}
	if s.During {
		what += " (asked while the task runs: the task's Ask returns the outcome to Run)"
	}
	return pre + what
}

func defaultsList(f *formModel) string {
	if f == nil {
		return ""
	}
	var parts []string
	for _, fd := range f.Fields {
		if fd.Default != nil {
			parts = append(parts, fd.Property+" = "+strconv.Quote(fd.Default.Raw))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

// isOursBytes reports whether b, the content of path, was written by
// elicitgen: a Go file's first line, a contract's "generated" member.
func isOursBytes(path string, b []byte) bool {
	if strings.HasSuffix(path, ".json") {
		return bytes.HasPrefix(b, []byte("{\n  \"generated\": \""+header+"\""))
	}
	return bytes.HasPrefix(b, []byte("// "+header))
}

func fileIsOurs(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && isOursBytes(path, b)
}
