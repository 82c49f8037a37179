package gen

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/fatih/structtag"
)

// The one reader of elicit tags, for forms and tool steps alike:
//
//	elicit:"NAME,OPTION,OPTION=VALUE,OPTION='VALUE, WITH COMMAS'"
//
// readTag finds the elicit entry of a struct tag (structtag judges its
// syntax), splitTag cuts its value into the name and options, and
// applyGrammar checks the options against a table (known, value or not,
// given once). Every problem carries the byte offset, in the elicit value,
// of the part it is about, so that Check can point at the option's column.

// tagProblem is a problem of a tag at byte offset off of the elicit value;
// off is -1 for the tag as a whole.
type tagProblem struct {
	off int
	msg string
	fix *tagFix // the replacement the message names, or nil
}

// tagFix replaces the bytes from off to end of the elicit value with text.
type tagFix struct {
	off, end int
	text     string
}

// tagOption is one comma-separated option of an elicit tag.
type tagOption struct {
	key      string // trimmed
	value    string // verbatim, or unquoted when quoted
	hasValue bool
	quoted   bool
	text     string // the option as written, untrimmed
	off      int    // offset of the key in the elicit value
	valOff   int    // offset of the value in the elicit value
}

// elicitTag is the elicit entry of a struct tag.
type elicitTag struct {
	present bool
	value   string // as written
	// off is the offset of value in the raw struct tag, or -1 when offsets
	// in value are not offsets in the source (the value has escapes).
	off     int
	name    string // trimmed
	nameOff int
	options []tagOption
}

// readTag reads and splits the elicit entry of a raw (unquoted) struct tag.
func readTag(raw string) (elicitTag, []tagProblem) {
	if strings.TrimSpace(raw) == "" {
		return elicitTag{}, nil
	}
	tags, err := structtag.Parse(raw)
	if err != nil {
		return elicitTag{}, []tagProblem{{-1, fmt.Sprintf("malformed struct tag %q: %v", raw, err), nil}}
	}
	if tags == nil {
		return elicitTag{}, nil
	}
	if tag, err := tags.Get("elicit"); err != nil || tag == nil {
		return elicitTag{}, nil
	}
	value, off, ok := lookupTag(raw, "elicit")
	if !ok { // structtag and reflect's grammar agree; FuzzParseStructTag holds them to it
		return elicitTag{}, []tagProblem{{-1, fmt.Sprintf("malformed struct tag %q", raw), nil}}
	}
	t, problems := splitTag(value)
	t.off = off
	return t, problems
}

// lookupTag is reflect.StructTag.Lookup that also returns the offset of the
// value in tag, or -1 when the value is not spelled as is (escapes).
func lookupTag(tag, key string) (value string, off int, ok bool) {
	base := 0
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag, base = tag[i:], base+i
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		name := tag[:i]
		tag, base = tag[i+1:], base+i+1
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		quoted := tag[:i+1]
		tag = tag[i+1:]
		if name == key {
			v, err := strconv.Unquote(quoted)
			if err != nil {
				break
			}
			if v != quoted[1:len(quoted)-1] { // escapes, or invalid UTF-8 made U+FFFD
				return v, -1, true
			}
			return v, base + 1, true
		}
		base += i + 1
	}
	return "", -1, false
}

// splitTag cuts an elicit value into its name and options. A value that
// begins with a single quote runs to the next single quote not doubled
// (” stands for one quote) and may hold commas.
func splitTag(value string) (elicitTag, []tagProblem) {
	t := elicitTag{present: true, value: value}
	var problems []tagProblem
	end := strings.IndexByte(value, ',')
	if end < 0 {
		end = len(value)
	}
	t.name = strings.TrimSpace(value[:end])
	t.nameOff = len(value[:end]) - len(strings.TrimLeftFunc(value[:end], unicode.IsSpace))
	for i := end; i < len(value); {
		o, next, more := readOption(value, i+1) // after the comma
		t.options = append(t.options, o)
		problems = append(problems, more...)
		i = next
	}
	return t, problems
}

// readOption reads the option that starts at offset start of an elicit
// value: it runs to the next comma, or to the end of its quoted value. It
// returns the option and the offset it ends at.
func readOption(value string, start int) (tagOption, int, []tagProblem) {
	i := start
	for i < len(value) && value[i] != ',' && value[i] != '=' {
		i++
	}
	keyText := value[start:i]
	o := tagOption{key: strings.TrimSpace(keyText), off: start + len(keyText) - len(strings.TrimLeftFunc(keyText, unicode.IsSpace))}
	var problems []tagProblem
	if i < len(value) && value[i] == '=' {
		i++
		o.hasValue = true
		o.valOff = i
		if i < len(value) && value[i] == '\'' {
			o.quoted = true
			o.value, i, problems = quotedValue(value, i, o.key)
		} else {
			vs := i
			for i < len(value) && value[i] != ',' {
				i++
			}
			o.value = value[vs:i]
		}
	}
	o.text = value[start:i]
	return o, i, problems
}

// quotedValue reads the quoted value of option key that starts, with its
// quote, at offset i of an elicit value: its text, and the offset the
// option ends at.
func quotedValue(value string, i int, key string) (string, int, []tagProblem) {
	var b strings.Builder
	j := i + 1
	closed := false
	for j < len(value) {
		if value[j] == '\'' {
			if j+1 < len(value) && value[j+1] == '\'' {
				b.WriteByte('\'')
				j += 2
				continue
			}
			closed = true
			j++
			break
		}
		b.WriteByte(value[j])
		j++
	}
	switch {
	case !closed:
		return b.String(), j, []tagProblem{{i, fmt.Sprintf("option %s: the quoted value has no closing quote: write %s='TEXT' (a quote inside is written twice: '')", key, key), nil}}
	case j < len(value) && value[j] != ',':
		k := strings.IndexByte(value[j:], ',')
		if k < 0 {
			k = len(value) - j
		}
		return b.String(), j + k, []tagProblem{{j, fmt.Sprintf("option %s: %q after the closing quote: the option ends at its closing quote (a quote inside is written twice: '')", key, value[j:j+k]), nil}}
	}
	return b.String(), j, nil
}

// grammar is the option table of one kind of tag.
type grammar struct {
	what    string          // "elicit" or "step", for messages
	options map[string]bool // option → takes a value
	// empty lists the options whose value may be empty.
	empty []string
}

// known lists the options, sorted, for messages.
func (g grammar) known() string {
	return strings.Join(slices.Sorted(maps.Keys(g.options)), ", ")
}

// applyGrammar checks the options against g and returns the good ones, in
// order, and a problem for each bad one.
func applyGrammar(t elicitTag, g grammar) ([]tagOption, []tagProblem) {
	var good []tagOption
	var problems []tagProblem
	seen := map[string]bool{}
	for i, o := range t.options {
		takesValue, known := g.options[o.key]
		bad := func(format string, args ...any) {
			problems = append(problems, tagProblem{o.off, fmt.Sprintf(format, args...), nil})
		}
		switch {
		case o.key == "" && g.what == "elicit":
			bad("empty option in elicit tag %q", t.value)
		case o.key == "":
			bad("empty %s option in elicit tag %q", g.what, t.value)
		case !known:
			msg, near := g.unknown(t, i)
			problems = append(problems, tagProblem{o.off, msg, nil})
			if near != "" {
				problems[len(problems)-1].fix = &tagFix{o.off, o.off + len(o.key), near}
				// Checked as the option it almost is, as a directive that
				// almost is one: its misspelling is the one problem told.
				if wants := g.options[near]; !seen[near] && wants == o.hasValue && (o.value != "" || !wants) {
					seen[near] = true
					o.key = near
					good = append(good, o)
				}
			}
		case seen[o.key]:
			bad("%s option %q given twice", g.what, o.key)
		case takesValue && !o.hasValue:
			bad("%s option %q needs a value: %s=VALUE", g.what, o.key, o.key)
		case !takesValue && o.hasValue:
			bad("%s option %q takes no value", g.what, o.key)
		case takesValue && o.value == "" && !slices.Contains(g.empty, o.key):
			bad("%s option %q has an empty value", g.what, o.key)
		default:
			seen[o.key] = true
			good = append(good, o)
		}
	}
	return good, problems
}

// unknown is the message for the unknown option i of t: a did-you-mean when
// a known option is close, else, after an option with a value, what a
// comma in that value did and how to keep it (quoting the value up to the
// next option, so that applying the fix keeps every option).
func (g grammar) unknown(t elicitTag, i int) (msg, near string) {
	o := t.options[i]
	msg = fmt.Sprintf("unknown %s option %q", g.what, o.key)
	if near := nearest(o.key, slices.Collect(maps.Keys(g.options))); near != "" {
		return fmt.Sprintf("%s: did you mean %s? (known: %s)", msg, near, g.known()), near
	}
	if i > 0 && !o.hasValue && prose(o.text) {
		prev := t.options[i-1]
		if prev.hasValue && !prev.quoted {
			// The value runs on up to the next option with a value or the
			// next known one: "confirm,once" after it stay options.
			text := prev.value
			for _, next := range t.options[i:] {
				if _, known := g.options[next.key]; next.hasValue || known {
					break
				}
				text += "," + next.text
			}
			return fmt.Sprintf("%s: a comma ends an option, so the value of %s stopped before %q; to put commas in a value, quote it: %s='%s'",
				msg, prev.key, ","+o.text, prev.key, strings.ReplaceAll(text, "'", "''")), ""
		}
	}
	return fmt.Sprintf("%s (known: %s)", msg, g.known()), ""
}

// prose reports whether an option's text reads as the rest of a sentence
// rather than an option name: it starts with a space or has characters no
// option name has.
func prose(text string) bool {
	if strings.HasPrefix(text, " ") {
		return true
	}
	for _, r := range strings.TrimSpace(text) {
		if !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return true
		}
	}
	return false
}

// nearest returns the candidate closest to s by edit distance, when it is
// close enough to be a likely misspelling, else "".
func nearest(s string, candidates []string) string {
	slices.Sort(candidates)
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), c)
		if d < bestD && d*3 <= max(len(c), 3) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance of a and b, in
// bytes: insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// tagSpec is the parsed elicit tag of a form field.
type tagSpec struct {
	Present   bool // the field has an elicit tag
	Skip      bool // elicit:"-"
	Name      string
	Required  bool
	Title     string
	Min, Max  string // raw text; typed by the field in check.go
	Format    string
	Default   *string // nil when absent; typed by the field
	Enum      []string
	NotSecret bool
	EnumNames bool // enumnames: titles as the deprecated enumNames
	// at maps each option given to it: its value, and its offset in the
	// elicit value (where a problem with it is reported).
	at map[string]tagOption
}

// formGrammar lists every option of a form field's tag, with whether it
// takes a value. docs/reference/grammar.md documents this table.
var formGrammar = grammar{
	what: "elicit",
	options: map[string]bool{
		"required":  false,
		"notsecret": false,
		"enumnames": false,
		"title":     true,
		"min":       true,
		"max":       true,
		"format":    true,
		"default":   true,
		"enum":      true,
	},
	empty: []string{"default"},
}

// parseFormTag reads a form field's elicit tag.
func parseFormTag(t elicitTag) (tagSpec, []tagProblem) {
	if !t.present {
		return tagSpec{}, nil
	}
	spec := tagSpec{Present: true, at: map[string]tagOption{}}
	if t.value == "-" {
		spec.Skip = true
		return spec, nil
	}
	spec.Name = t.name
	options, problems := applyGrammar(t, formGrammar)
	for _, o := range options {
		spec.at[o.key] = o
		switch o.key {
		case "required":
			spec.Required = true
		case "notsecret":
			spec.NotSecret = true
		case "enumnames":
			spec.EnumNames = true
		case "title":
			spec.Title = o.value
		case "min":
			spec.Min = o.value
		case "max":
			spec.Max = o.value
		case "format":
			spec.Format = o.value
		case "default":
			v := o.value
			spec.Default = &v
		case "enum":
			for _, e := range strings.Split(o.value, "|") {
				if e == "" {
					problems = append(problems, tagProblem{o.off, fmt.Sprintf("enum %q has an empty value", o.value), nil})
					break
				}
				if slices.Contains(spec.Enum, e) {
					problems = append(problems, tagProblem{o.off, fmt.Sprintf("enum %q repeats the value %q", o.value, e), nil})
					break
				}
				spec.Enum = append(spec.Enum, e)
			}
		}
	}
	return spec, problems
}

// stepSpec is the parsed elicit tag of a tool step.
type stepSpec struct {
	Key            string
	Message        string
	MessageHandler bool
	AskHandler     bool
	Prefill        bool
	Once           bool
	Together       bool
	During         bool
	Confirm        bool
	Fallback       string // "" when not given
	at             map[string]tagOption
}

// stepGrammar lists the options of a step's elicit tag.
var stepGrammar = grammar{
	what:    "step",
	options: map[string]bool{"message": true, "ask": true, "prefill": false, "fallback": true, "once": false, "together": false, "during": false, "confirm": false},
}

// parseStepTag reads a tool step's elicit tag. Values are checked by Check.
func parseStepTag(t elicitTag) (stepSpec, []tagProblem) {
	spec := stepSpec{Key: t.name, at: map[string]tagOption{}}
	options, problems := applyGrammar(t, stepGrammar)
	for _, o := range options {
		spec.at[o.key] = o
		switch o.key {
		case "message":
			if o.value == "handler" && !o.quoted {
				spec.MessageHandler = true
			} else {
				spec.Message = o.value
			}
		case "ask":
			if o.value != "handler" {
				problems = append(problems, tagProblem{o.off, fmt.Sprintf("ask=%s: the only value is handler (the handler decides whether to ask)", o.value), nil})
			}
			spec.AskHandler = true
		case "prefill":
			spec.Prefill = true
		case "once":
			spec.Once = true
		case "together":
			spec.Together = true
		case "during":
			spec.During = true
		case "confirm":
			spec.Confirm = true
		case "fallback":
			switch o.value {
			case "error", "defaults", "arguments", "handler", "preview", "link":
				spec.Fallback = o.value
			default:
				p := tagProblem{o.off, fmt.Sprintf("fallback=%s: use defaults, arguments, error, handler, link or preview", o.value), nil}
				if near := nearest(o.value, []string{"error", "defaults", "arguments", "handler", "preview", "link"}); near != "" {
					p.msg = fmt.Sprintf("fallback=%s: did you mean %s? (use defaults, arguments, error, handler, link or preview)", o.value, near)
					if !o.quoted {
						p.fix = &tagFix{o.valOff, o.valOff + len(o.value), near}
					}
				}
				problems = append(problems, p)
			}
		}
	}
	return spec, problems
}

// hasElicitKey reports whether a raw struct tag has an elicit key, even a
// malformed one (elicit:x, a bare elicit) that Lookup misses; other keys
// that merely end in elicit (noelicit:"x") do not count.
func hasElicitKey(raw string) bool {
	for _, f := range strings.Fields(raw) {
		if f == "elicit" || strings.HasPrefix(f, "elicit:") {
			return true
		}
	}
	return false
}
