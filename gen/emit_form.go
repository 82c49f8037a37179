package gen

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
	"unicode/utf8"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The forms' code is written as text, already in gofmt's layout, rather
// than built with jennifer and run through go/format: on a package of
// hundreds of forms, printing the syntax tree cost several times the
// loading of the package (see BenchmarkGenerate). The layout rules used
// here are the few the code needs: one tab per level, one blank line
// between declarations, struct field types aligned one space after the
// longest name of a run of named fields, and keyed composite literals
// aligned after the longest key. TestGolden checks every byte, and
// TestEmitIsGofmtClean that gofmt leaves the output as it is.

// goText accumulates Go source.
type goText struct {
	b []byte
}

// line writes one line at indentation depth.
func (w *goText) line(depth int, parts ...string) {
	for range depth {
		w.b = append(w.b, '\t')
	}
	for _, p := range parts {
		w.b = append(w.b, p...)
	}
	w.b = append(w.b, '\n')
}

// start begins a line at indentation depth; add continues it.
func (w *goText) start(depth int) {
	for range depth {
		w.b = append(w.b, '\t')
	}
}

func (w *goText) add(parts ...string) {
	for _, p := range parts {
		w.b = append(w.b, p...)
	}
}

// comment writes a // comment line.
func (w *goText) comment(depth int, text string) { w.line(depth, "// ", text) }

// aligned writes name-value lines whose values start one space after the
// longest name, as gofmt aligns struct fields and keyed elements.
func (w *goText) aligned(depth int, pairs [][2]string) {
	width := 0
	for _, p := range pairs {
		width = max(width, utf8.RuneCountInString(p[0]))
	}
	for _, p := range pairs {
		w.line(depth, p[0], strings.Repeat(" ", width-utf8.RuneCountInString(p[0])+1), p[1])
	}
}

// quote spells s as a Go string literal.
func quote(s string) string { return strconv.Quote(s) }

// addQuoted continues the line with s as a Go string literal, as quote
// spells it: printable ASCII needs only its quotes and backslashes escaped.
func (w *goText) addQuoted(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			w.b = strconv.AppendQuote(w.b, s)
			return
		}
	}
	w.b = append(w.b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			w.b = append(w.b, '\\', c)
		} else {
			w.b = append(w.b, c)
		}
	}
	w.b = append(w.b, '"')
}

// intLit spells an integer literal.
func intLit(n int64) string { return strconv.FormatInt(n, 10) }

// floatLit spells a float64 literal as jennifer did: %#v, with ".0" added
// to integral values written without an exponent.
func floatLit(f float64) string {
	s := fmt.Sprintf("%#v", f)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// formText writes one form's declarations. qual returns the name under
// which the generated file imports a package path.
type formText struct {
	*formEmitter
	w    *goText
	qual func(path string) string
	rts  map[string]string // runtime names spelled so far, shared by the file's forms
}

// rt spells a name of the runtime package.
func (e *formText) rt(name string) string {
	if s, ok := e.rts[name]; ok {
		return s
	}
	s := e.qual(runtimePath) + "." + name
	e.rts[name] = s
	return s
}

// typeText spells a Go type for generated code, qualifying foreign names.
func (e *formText) typeText(t types.Type) string {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return t.Name()
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || obj.Pkg().Path() == e.pkg.Path {
			return obj.Name()
		}
		return e.qual(obj.Pkg().Path()) + "." + obj.Name()
	case *types.Pointer:
		return "*" + e.typeText(t.Elem())
	case *types.Slice:
		return "[]" + e.typeText(t.Elem())
	case *types.Array:
		return "[" + intLit(t.Len()) + "]" + e.typeText(t.Elem())
	case *types.Map:
		return "map[" + e.typeText(t.Key()) + "]" + e.typeText(t.Elem())
	case *types.Interface:
		return "any"
	}
	return types.TypeString(t, nil)
}

// versionText writes the version lock that heads every generated file.
func versionText(w *goText, qual func(string) string) {
	rt := qual(runtimePath)
	v := strconv.Itoa(elicitrt.GenVersion)
	w.line(0)
	w.comment(0, "The build fails on the next lines when this file and the elicitgen runtime")
	w.comment(0, "come from different versions of elicitgen: run the elicitgen of the same")
	w.comment(0, "module version as the runtime, then go generate.")
	w.line(0, "const (")
	w.line(1, "_ = ", rt, ".EnforceVersion(", v, " - ", rt, ".MinVersion)")
	w.line(1, "_ = ", rt, ".EnforceVersion(", rt, ".MaxVersion - ", v, ")")
	w.line(0, ")")
}

// emit writes the form's declarations, each after a blank line: the stale
// check, the schema, ElicitSchema, ElicitParams, the enum index functions
// of enums that the file declares and has not declared yet (which it
// removes from enums), and DecodeElicit.
func (e *formText) emit(enums map[string]bool) {
	w := e.w
	form := e.form
	name := form.Name
	schemaVar := e.helper(name, "schema")
	schemaValue := e.helper(name, "schemaValue")
	json := e.qual("encoding/json")
	mcp := e.qual(mcpPath)

	if form.Shape != nil {
		embedded := e.embeddedFields()
		w.line(0)
		w.line(0, `// A "cannot convert" error here means `, name, " changed after elicitgen ran: run go generate.")
		w.line(0, "func _() {")
		if len(form.Shape) == 0 {
			w.line(1, "_ = struct{}(", name, "{})")
		} else {
			w.line(1, "_ = struct {")
			var run [][2]string // a run of named fields, aligned together
			for i, sf := range form.Shape {
				if embedded[i] {
					// An embedded field is spelled as its type alone: a named
					// field of the same type would not convert.
					w.aligned(2, run)
					run = run[:0]
					w.line(2, e.typeText(sf.Type))
					continue
				}
				run = append(run, [2]string{sf.Name, e.typeText(sf.Type)})
			}
			w.aligned(2, run)
			w.line(1, "}(", name, "{})")
		}
		w.line(0, "}")
	}

	w.line(0)
	w.line(0, "// ", schemaVar, " is the precomputed requestedSchema of ", name, ".")
	w.line(0, "var (")
	w.start(1)
	w.add(schemaVar, "          = ", json, ".RawMessage(")
	w.addQuoted(string(form.Schema))
	w.add(")\n")
	w.line(1, schemaValue, " any = ", schemaVar)
	w.line(0, ")")

	w.line(0)
	w.line(0, "// ElicitSchema returns the requestedSchema of ", name, ", precomputed at generate time.")
	w.comment(0, "The bytes are shared: do not modify them.")
	w.line(0, "func (", name, ") ElicitSchema() ", json, ".RawMessage {")
	w.line(1, "return ", schemaVar)
	w.line(0, "}")

	w.line(0)
	w.line(0, "// ElicitParams returns form-mode elicitation params that ask message with the schema of ", name, ".")
	w.line(0, "func (", name, ") ElicitParams(message string) *", mcp, ".ElicitParams {")
	w.line(1, "return &", mcp, ".ElicitParams{")
	w.line(2, "Message:         message,")
	w.line(2, `Mode:            "form",`)
	w.line(2, "RequestedSchema: ", schemaValue, ",")
	w.line(1, "}")
	w.line(0, "}")

	for _, fd := range form.Fields {
		if fd.Enum == nil {
			continue
		}
		fn := e.enumIndexName(fd)
		if !enums[fn] {
			continue
		}
		delete(enums, fn)
		w.line(0)
		w.line(0, "// ", fn, " returns the position of s among the allowed values, or -1.")
		w.line(0, "func ", fn, "(s string) int {")
		w.line(1, "switch s {")
		for i, v := range fd.Enum.Values {
			w.line(1, "case ", quote(v.Value), ":")
			w.line(2, "return ", strconv.Itoa(i))
		}
		w.line(1, "}")
		w.line(1, "return -1")
		w.line(0, "}")
	}

	v, errs := e.local("v"), e.local("errs")
	w.line(0)
	w.comment(0, "DecodeElicit decodes accepted form content into x, strictly: JSON types, enum values,")
	w.comment(0, "bounds, lengths, formats and required properties are checked, defaults fill absent")
	w.comment(0, "optional properties and unknown keys are ignored. On failure x is left unchanged and")
	w.comment(0, "the error is a *elicitrt.ContentError listing every bad property.")
	w.line(0, "func (x *", name, ") DecodeElicit(content map[string]any) error {")
	w.line(1, "var ", v, " ", name)
	w.line(1, "var ", errs, " []", e.rt("FieldError"))
	if block := e.blockText(); block != nil {
		w.comment(1, "One allocation, made when first needed, holds the values of the optional")
		w.comment(1, "pointers and the items of the multi-selects.")
		w.line(1, "type ", e.local("block"), " struct {")
		w.aligned(2, block)
		w.line(1, "}")
		w.line(1, "var ", e.local("blk"), " *", e.local("block"))
	}
	for _, fd := range form.Fields {
		if fd.Kind == KindMulti {
			e.decodeMultiText(fd)
		} else {
			e.decodeFieldText(fd)
		}
	}
	w.line(1, "if ", errs, " != nil {")
	w.line(2, "return &", e.rt("ContentError"), "{Fields: ", errs, "}")
	w.line(1, "}")
	w.line(1, "*x = ", v)
	w.line(1, "return nil")
	w.line(0, "}")
}

// blockText returns the fields of the decoder's block: one per optional
// pointer (its value) and one per multi-select (an array with room for
// every enum value, which no valid answer exceeds: items are distinct
// values of the enum). Nil when the form has neither.
func (e *formText) blockText() [][2]string {
	var fields [][2]string
	for _, fd := range e.form.Fields {
		switch {
		case fd.Kind == KindMulti:
			elem := fd.Value.Underlying().(*types.Slice).Elem()
			fields = append(fields, [2]string{fd.GoName, "[" + strconv.Itoa(len(fd.Enum.Values)) + "]" + e.typeText(elem)})
		case fd.Pointer:
			fields = append(fields, [2]string{fd.GoName, e.typeText(fd.Value)})
		}
	}
	return fields
}

// newBlock writes the statement that allocates the block unless it exists.
func (e *formText) newBlock(depth int) {
	blk := e.local("blk")
	e.w.line(depth, "if ", blk, " == nil {")
	e.w.line(depth+1, blk, " = new(", e.local("block"), ")")
	e.w.line(depth, "}")
}

// fail writes the statement that records reason for the property, quoted
// as prop.
func (e *formText) fail(depth int, prop, reason string) {
	errs := e.local("errs")
	e.w.line(depth, errs, " = append(", errs, ", ", e.rt("FieldError"), "{")
	e.w.line(depth+1, "Property: ", prop, ",")
	e.w.line(depth+1, "Reason:   ", reason, ",")
	e.w.line(depth, "})")
}

// clause writes the header of the k-th link of an if / else-if chain whose
// condition parts mean "invalid", then the failure with reason.
func (e *formText) clause(k *int, prop, reason string, cond ...string) {
	e.w.start(2)
	if *k == 0 {
		e.w.add("if ")
	} else {
		e.w.add("} else if ")
	}
	*k++
	e.w.add(cond...)
	e.w.add(" {\n")
	e.fail(3, prop, reason)
}

// rangeText is "n < lo || n > hi" for the bounds that exist.
func rangeText(n string, hasMin, hasMax bool, lo, hi string) string {
	switch {
	case hasMin && hasMax:
		return n + " < " + lo + " || " + n + " > " + hi
	case hasMin:
		return n + " < " + lo
	}
	return n + " > " + hi
}

// decodeFieldText writes the decoding of one scalar property into v.
func (e *formText) decodeFieldText(fd *Field) {
	w := e.w
	raw, ok, v := e.local("raw"), e.local("ok"), e.local("v")
	prop := quote(fd.Property)
	convert := func(id string) string {
		if _, basic := types.Unalias(fd.Value).(*types.Basic); basic && (fd.Kind == KindString || fd.Kind == KindBool || fd.Kind == KindNumber && !fd.Float32) {
			return id
		}
		return e.typeText(fd.Value) + "(" + id + ")"
	}

	w.line(1, "if ", raw, ", ", ok, " := content[", prop, "]; ", ok, " {")
	k := 0
	var value string // the decoded value, assigned when every clause passes
	switch fd.Kind {
	case KindString, KindEnum, KindTime:
		s := e.local("s")
		e.clause(&k, prop, e.rt("ReasonString"), s, ", ", ok, " := ", raw, ".(string); !", ok)
		switch fd.Kind {
		case KindString:
			if fd.HasMin || fd.HasMax {
				lo, hi := "0", intLit(fd.MaxInt)
				if fd.HasMin {
					lo = intLit(fd.MinInt)
				}
				if !fd.HasMax {
					hi = e.qual("math") + ".MaxInt" // no bound: none at all
				}
				e.clause(&k, prop, quote(lengthReason(fd)), "!", e.rt("CharCountWithin"), "(", s, ", ", lo, ", ", hi, ")")
			}
			switch fd.Format {
			case "email":
				e.clause(&k, prop, e.rt("ReasonEmail"), "!", e.rt("IsEmail"), "(", s, ")")
			case "uri":
				e.clause(&k, prop, e.rt("ReasonURI"), "!", e.rt("IsAbsoluteURI"), "(", s, ")")
			case "date":
				e.clause(&k, prop, e.rt("ReasonDate"), "!", e.rt("IsDate"), "(", s, ")")
			case "date-time":
				e.clause(&k, prop, e.rt("ReasonDateTime"), "_, ", ok, " := ", e.rt("ParseDateTime"), "(", s, "); !", ok)
			}
			value = convert(s)
		case KindEnum:
			e.clause(&k, prop, quote("must be one of "+fd.Enum.list()), e.enumIndexName(fd), "(", s, ") < 0")
			if fd.Enum.Named == nil {
				value = s // an inline enum= on a plain string
			} else {
				value = e.typeText(fd.Value) + "(" + s + ")"
			}
		case KindTime:
			tm := e.local("tm")
			parse, reason := "ParseDateTime", "ReasonDateTime"
			if fd.Format == "date" {
				parse, reason = "ParseDate", "ReasonDate"
			}
			e.clause(&k, prop, e.rt(reason), tm, ", ", ok, " := ", e.rt(parse), "(", s, "); !", ok)
			value = tm
		}
	case KindBool:
		b := e.local("b")
		e.clause(&k, prop, e.rt("ReasonBoolean"), b, ", ", ok, " := ", raw, ".(bool); !", ok)
		value = convert(b)
	case KindInteger:
		n, reason := e.local("n"), e.local("reason")
		e.clause(&k, prop, reason, n, ", ", reason, " := ", e.rt("Integer"), "(", raw, "); ", reason, ` != ""`)
		e.clause(&k, prop, quote(fmt.Sprintf("must be an integer from %d to %d", fd.MinInt, fd.MaxInt)),
			rangeText(n, true, true, intLit(fd.MinInt), intLit(fd.MaxInt)))
		value = e.typeText(fd.Value) + "(" + n + ")"
	case KindNumber:
		n, reason := e.local("n"), e.local("reason")
		e.clause(&k, prop, reason, n, ", ", reason, " := ", e.rt("Number"), "(", raw, "); ", reason, ` != ""`)
		if fd.HasMin || fd.HasMax {
			e.clause(&k, prop, quote(numberReason(fd)), rangeText(n, fd.HasMin, fd.HasMax, floatLit(fd.MinNum), floatLit(fd.MaxNum)))
		}
		if fd.Float32 && !(fd.HasMin && fd.HasMax) {
			// Declared bounds lie within the float32 range; one bound alone
			// leaves the other side open.
			math := e.qual("math")
			e.clause(&k, prop, e.rt("ReasonFloat32"), rangeText(n, true, true, "-"+math+".MaxFloat32", math+".MaxFloat32"))
		}
		value = convert(n)
	}
	w.line(2, "} else {")
	if fd.Pointer {
		blk := e.local("blk")
		e.newBlock(3)
		w.line(3, blk, ".", fd.GoName, " = ", value)
		w.line(3, v, ".", fd.GoName, " = &", blk, ".", fd.GoName)
	} else {
		w.line(3, v, ".", fd.GoName, " = ", value)
	}
	w.line(2, "}")
	e.absentText(fd, prop)
}

// absentText closes the property's if statement, with the else branch
// taken when the property is missing.
func (e *formText) absentText(fd *Field, prop string) {
	w := e.w
	v := e.local("v")
	switch {
	case fd.Required:
		w.line(1, "} else {")
		e.fail(2, prop, e.rt("ReasonRequired"))
	case fd.Default != nil && fd.Kind == KindMulti && len(fd.Default.List) > 0:
		// A fresh slice of the default items, in the block.
		w.line(1, "} else {")
		e.newBlock(2)
		items := make([]string, len(fd.Default.List))
		for i, s := range fd.Default.List {
			items[i] = quote(s)
		}
		w.line(2, v, ".", fd.GoName, " = append(", e.local("blk"), ".", fd.GoName, "[:0], ", strings.Join(items, ", "), ")")
	case fd.Default != nil:
		w.line(1, "} else {")
		w.line(2, v, ".", fd.GoName, " = ", e.defaultText(fd))
	}
	w.line(1, "}")
}

// defaultText spells the default value of a property.
func (e *formText) defaultText(fd *Field) string {
	d := fd.Default
	switch fd.Kind {
	case KindString, KindEnum:
		return quote(d.String) // untyped constants assign to named types too
	case KindBool:
		return strconv.FormatBool(d.Bool)
	case KindInteger:
		return intLit(d.Int)
	case KindNumber:
		return floatLit(d.Num)
	case KindMulti:
		items := make([]string, len(d.List))
		for i, s := range d.List {
			items[i] = quote(s)
		}
		return e.typeText(fd.Value) + "{" + strings.Join(items, ", ") + "}"
	case KindTime:
		t := d.Time
		tp := e.qual("time")
		loc := tp + ".UTC"
		if _, off := t.Zone(); off != 0 {
			loc = tp + `.FixedZone("", ` + strconv.Itoa(off) + ")"
		}
		return fmt.Sprintf("%s.Date(%d, %s.Month(%d), %d, %d, %d, %d, %d, %s)", tp, t.Year(), tp, int(t.Month()), t.Day(),
			t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	}
	return ""
}

// decodeMultiText writes the decoding of a multi-select: the items go to
// the field's array in the block, a fixed-size seen array finds
// duplicates.
func (e *formText) decodeMultiText(fd *Field) {
	w := e.w
	raw, ok, v := e.local("raw"), e.local("ok"), e.local("v")
	list, reason, items, seen, it, s, i := e.local("list"), e.local("reason"), e.local("items"), e.local("seen"), e.local("it"), e.local("s"), e.local("i")
	elemType := fd.Value.Underlying().(*types.Slice).Elem() // Value may be a named slice type
	elem := e.typeText(elemType)
	elemValue := s
	if _, named := types.Unalias(elemType).(*types.Named); named {
		elemValue = elem + "(" + s + ")"
	}
	prop := quote(fd.Property)
	w.line(1, "if ", raw, ", ", ok, " := content[", prop, "]; ", ok, " {")
	w.line(2, list, ", ", ok, " := ", e.rt("List"), "(", raw, ")")
	w.line(2, "var ", reason, " string")
	w.line(2, "var ", items, " []", elem)
	w.line(2, "if !", ok, " {")
	w.line(3, reason, " = ", e.rt("ReasonArray"))
	if fd.HasMin || fd.HasMax {
		w.line(2, "} else if ", rangeText("len("+list+")", fd.HasMin, fd.HasMax, intLit(fd.MinInt), intLit(fd.MaxInt)), " {")
		w.line(3, reason, " = ", quote(itemsReason(fd)))
	}
	w.line(2, "} else {")
	e.newBlock(3)
	w.line(3, items, " = ", e.local("blk"), ".", fd.GoName, "[:0]")
	w.line(3, "var ", seen, " [", strconv.Itoa(len(fd.Enum.Values)), "]bool")
	w.line(3, "for _, ", it, " := range ", list, " {")
	w.line(4, s, ", ", ok, " := ", it, ".(string)")
	w.line(4, "if !", ok, " {")
	w.line(5, reason, " = ", e.rt("ReasonArray"))
	w.line(5, "break")
	w.line(4, "}")
	w.line(4, i, " := ", e.enumIndexName(fd), "(", s, ")")
	w.line(4, "if ", i, " < 0 {")
	w.line(5, reason, " = ", quote("items must be among "+fd.Enum.list()))
	w.line(5, "break")
	w.line(4, "}")
	w.line(4, "if ", seen, "[", i, "] {")
	w.line(5, reason, " = ", e.rt("ReasonDuplicate"))
	w.line(5, "break")
	w.line(4, "}")
	w.line(4, seen, "[", i, "] = true")
	w.line(4, items, " = append(", items, ", ", elemValue, ")")
	w.line(3, "}")
	w.line(2, "}")
	w.line(2, "if ", reason, ` != "" {`)
	e.fail(3, prop, reason)
	w.line(2, "} else {")
	w.line(3, v, ".", fd.GoName, " = ", items)
	w.line(2, "}")
	e.absentText(fd, prop)
}
