package gen

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// renderHTML renders the reference as one self-contained page: every
// form as a host shows it, a labelled control per field, and nothing
// loaded from anywhere (the style is inline; no script, font or image).
func renderHTML(ref *Reference) []byte {
	var buf bytes.Buffer
	if err := htmlPage.Execute(&buf, ref); err != nil {
		panic(fmt.Sprintf("elicitgen: the reference page does not render: %v", err)) // plain data: cannot happen
	}
	return buf.Bytes()
}

// radioMax is the most values an enum is shown as radio buttons with; a
// longer one is a select.
const radioMax = 5

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"id":        func(p, d, s int, prop string) string { return fmt.Sprintf("f%d-%d-%d-%s", p, d, s, prop) },
	"radios":    func(f RefField) bool { return len(f.Enum) <= radioMax },
	"inputType": inputType,
	"num":       func(p *float64) string { return strconv.FormatFloat(*p, 'g', -1, 64) },
	"isDef":     func(f RefField, v string) bool { return f.Default != nil && *f.Default == v },
	"inList":    func(f RefField, v string) bool { return f.Default != nil && containsWord(*f.Default, v) },
	"label":     func(e RefEnum) string { return cmpOr(e.Title, e.Value) },
	"bounds":    boundsWords,
	"asked":     askedWords,
	"join":      joinComma,
	"yes":       yesNo,
	"code":      codeHTML,
	"inc":       func(i int) int { return i + 1 },
}).Parse(htmlTemplate))

// inputType is the input element's type for a string or number field.
func inputType(f RefField) string {
	switch {
	case f.Type == "integer" || f.Type == "number":
		return "number"
	case f.Format == "email":
		return "email"
	case f.Format == "uri":
		return "url"
	case f.Format == "date":
		return "date"
	case f.Format == "date-time":
		return "datetime-local"
	}
	return "text"
}

// codeHTML escapes s and renders its `spans` as code.
func codeHTML(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(template.HTMLEscapeString(p))
	}
	return template.HTML(b.String())
}

// containsWord reports whether a multi-select's default (a|b) has v.
func containsWord(list, v string) bool {
	for _, w := range strings.Split(list, "|") {
		if w == v {
			return true
		}
	}
	return false
}

func joinComma(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
