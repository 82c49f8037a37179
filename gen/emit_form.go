package gen

import (
	"bytes"
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// formEmitter prints one form.
type formEmitter struct {
	pkg    *pkgModel
	form   *formModel
	taken  map[string]string // the file's imports: their names are taken
	locals map[string]string // local name → name used
}

// local returns a local name that does not collide with any package-level
// identifier of the form's package or any import of the generated file.
func (e *formEmitter) local(name string) string {
	if e.locals == nil {
		e.locals = map[string]string{}
	}
	if n, ok := e.locals[name]; ok {
		return n
	}
	isImport := func(n string) bool {
		for _, name := range e.taken {
			if name == n {
				return true
			}
		}
		return false
	}
	n := name
	for isImport(n) || e.pkg.types != nil && e.pkg.types.Scope().Lookup(n) != nil {
		n += "_"
	}
	e.locals[name] = n
	return n
}

func (e *formEmitter) id(name string) *jen.Statement { return jen.Id(e.local(name)) }

func (e *formEmitter) typ(t types.Type) *jen.Statement { return typeExpr(e.pkg.Path, t) }

// emit prints the form's declarations: the stale check, the schema,
// ElicitSchema, ElicitParams, the enum index functions the form declares,
// and DecodeElicit.
func (e *formEmitter) emit(f *jen.File) {
	if e.form.Shape != nil {
		e.emitShape(f)
	}
	e.emitSchema(f)
	for _, fd := range e.form.Indexes {
		emitIndex(f, fd.Enum)
	}
	e.emitDecode(f)
}

// emitShape prints the stale check: the form's struct converts to one of
// the fields it had when elicitgen ran, or the build fails.
func (e *formEmitter) emitShape(f *jen.File) {
	var fields []jen.Code
	for _, sf := range e.form.Shape {
		if sf.Embedded {
			// Spelled as its type alone: a named field of the same type
			// would not convert.
			fields = append(fields, e.typ(sf.Type))
		} else {
			fields = append(fields, jen.Id(sf.Name).Add(e.typ(sf.Type)))
		}
	}
	name := e.form.Name
	f.Commentf(`A "cannot convert" error here means %s changed after elicitgen ran: run go generate.`, name)
	f.Func().Id("_").Params().Block(jen.Id("_").Op("=").Struct(fields...).Call(jen.Id(name).Values()))
}

// emitSchema prints the schema variables, ElicitSchema and ElicitParams.
func (e *formEmitter) emitSchema(f *jen.File) {
	form, name := e.form, e.form.Name
	f.Commentf("%s is the precomputed requestedSchema of %s.", form.SchemaVar, name)
	f.Var().Defs(
		jen.Id(form.SchemaVar).Op("=").Qual("encoding/json", "RawMessage").Call(schemaLit(form.Schema)),
		jen.Id(form.SchemaVar+"Value").Any().Op("=").Id(form.SchemaVar),
	)
	f.Commentf("ElicitSchema returns the requestedSchema of %s, precomputed at generate time.", name)
	f.Comment("The bytes are shared: do not modify them.")
	f.Func().Params(jen.Id(name)).Id("ElicitSchema").Params().Qual("encoding/json", "RawMessage").Block(jen.Return(jen.Id(form.SchemaVar)))
	f.Commentf("ElicitParams returns form-mode elicitation params that ask message with the schema of %s.", name)
	f.Func().Params(jen.Id(name)).Id("ElicitParams").Params(jen.Id("message").String()).Op("*").Qual(mcpPath, "ElicitParams").Block(
		jen.Return(jen.Op("&").Qual(mcpPath, "ElicitParams").Values(jen.Dict{
			jen.Id("Message"):         jen.Id("message"),
			jen.Id("Mode"):            jen.Lit("form"),
			jen.Id("RequestedSchema"): jen.Id(form.SchemaVar + "Value"),
		})))
}

// emitIndex prints an enum's index function: a value's position, or -1.
func emitIndex(f *jen.File, enum *enumModel) {
	var cases []jen.Code
	for i, v := range enum.Values {
		cases = append(cases, jen.Case(jen.Lit(v.Value)).Block(jen.Return(jen.Lit(i))))
	}
	f.Commentf("%s returns the position of s among the allowed values, or -1.", enum.Index)
	f.Func().Id(enum.Index).Params(jen.Id("s").String()).Int().Block(
		jen.Switch(jen.Id("s")).Block(cases...),
		jen.Return(jen.Lit(-1)),
	)
}

// emitDecode prints DecodeElicit: each property decoded into a local
// copy, which replaces x only when every property is good.
func (e *formEmitter) emitDecode(f *jen.File) {
	name := e.form.Name
	body := []jen.Code{
		jen.Var().Add(e.id("v")).Id(name),
		jen.Var().Add(e.id("errs")).Index().Add(rt("FieldError")),
	}
	if block := e.blockFields(); block != nil {
		body = append(body,
			jen.Comment("One allocation, made when first needed, holds the values of the optional"),
			jen.Comment("pointers and the items of the multi-selects."),
			jen.Type().Add(e.id("block")).Struct(block...),
			jen.Var().Add(e.id("blk")).Op("*").Add(e.id("block")),
		)
	}
	for _, fd := range e.form.Fields {
		if fd.Kind == kindMulti {
			body = append(body, e.decodeMulti(fd))
		} else {
			body = append(body, e.decodeField(fd))
		}
	}
	body = append(body,
		jen.If(e.id("errs").Op("!=").Nil()).Block(jen.Return(jen.Op("&").Add(rt("ContentError")).Values(jen.Dict{jen.Id("Fields"): e.id("errs")}))),
		jen.Op("*").Id("x").Op("=").Add(e.id("v")),
		jen.Return(jen.Nil()),
	)
	f.Comment("DecodeElicit decodes accepted form content into x, strictly: JSON types, enum values,")
	f.Comment("bounds, lengths, formats and required properties are checked, defaults fill absent")
	f.Comment("optional properties and unknown keys are ignored. On failure x is left unchanged and")
	f.Comment("the error is a *elicitrt.ContentError listing every bad property.")
	f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("DecodeElicit").Params(jen.Id("content").Map(jen.String()).Any()).Error().Block(body...)
}

// schemaLit spells a schema as a raw string, which reads as the JSON
// itself (no escaped quotes), so that a schema change reads as a change of
// its text; the bytes are the compact ones the client is sent. Quoted when
// the schema holds a backquote.
func schemaLit(schema []byte) jen.Code {
	if bytes.IndexByte(schema, '`') >= 0 || bytes.IndexByte(schema, '\r') >= 0 {
		return jen.Lit(string(schema))
	}
	return jen.Op("`" + string(schema) + "`")
}

// blockFields returns the fields of the decoder's block: one per optional
// pointer (its value) and one per multi-select (an array with room for
// every enum value, which no valid answer exceeds: items are distinct
// values of the enum). Nil when the form has neither.
func (e *formEmitter) blockFields() []jen.Code {
	var fields []jen.Code
	for _, fd := range e.form.Fields {
		switch {
		case fd.Kind == kindMulti:
			fields = append(fields, jen.Id(fd.GoName).Index(jen.Lit(len(fd.Enum.Values))).Add(e.typ(multiElem(fd))))
		case fd.Pointer:
			fields = append(fields, jen.Id(fd.GoName).Add(e.typ(fd.Value)))
		}
	}
	return fields
}

func multiElem(fd *fieldModel) types.Type { return fd.Value.Underlying().(*types.Slice).Elem() }

// newBlock is the statement that allocates the block unless it exists.
func (e *formEmitter) newBlock() jen.Code {
	return jen.If(e.id("blk").Op("==").Nil()).Block(e.id("blk").Op("=").New(e.id("block")))
}

// fail is the statement that records reason for the property.
func (e *formEmitter) fail(prop string, reason jen.Code, shown ...jen.Code) jen.Code {
	d := jen.Dict{
		jen.Id("Property"): jen.Lit(prop),
		jen.Id("Reason"):   reason,
	}
	if len(shown) > 0 {
		d[jen.Id("Shown")] = shown[0]
	}
	return e.id("errs").Op("=").Append(e.id("errs"), rt("FieldError").Values(d))
}

// check is one link of an if / else-if chain: a condition meaning
// "invalid" (with its init statement, if any) and the reason.
type check struct {
	init, cond jen.Code
	reason     jen.Code
	shown      string // the reason as the form showed it (an enum's titles), or ""
}

// chain prints the if / else-if chain of checks, then else with ok.
func (e *formEmitter) chain(prop string, checks []check, ok []jen.Code) jen.Code {
	var s *jen.Statement
	for _, c := range checks {
		var head []jen.Code
		if c.init != nil {
			head = append(head, c.init)
		}
		head = append(head, c.cond)
		if s == nil {
			s = jen.If(head...)
		} else {
			s = s.Else().If(head...)
		}
		if c.shown != "" {
			s = s.Block(e.fail(prop, c.reason, jen.Lit(c.shown)))
		} else {
			s = s.Block(e.fail(prop, c.reason))
		}
	}
	return s.Else().Block(ok...)
}

// bounds is the condition "n is outside the bounds that exist".
func bounds(n *jen.Statement, hasMin, hasMax bool, lo, hi jen.Code) jen.Code {
	switch {
	case hasMin && hasMax:
		return n.Clone().Op("<").Add(lo).Op("||").Add(n.Clone()).Op(">").Add(hi)
	case hasMin:
		return n.Clone().Op("<").Add(lo)
	}
	return n.Clone().Op(">").Add(hi)
}

// decodeField is the decoding of one scalar property into v.
func (e *formEmitter) decodeField(fd *fieldModel) jen.Code {
	var checks []check
	var value *jen.Statement
	switch fd.Kind {
	case kindString, kindEnum, kindTime:
		checks, value = e.decodeText(fd)
	case kindBool:
		b, ok := e.id("b"), e.id("ok")
		checks = []check{{jen.List(b.Clone(), ok).Op(":=").Add(e.id("raw")).Assert(jen.Bool()), jen.Op("!").Add(ok), impl("ReasonBoolean"), ""}}
		value = e.convert(fd, b)
	case kindInteger:
		checks, value = e.decodeInteger(fd)
	case kindNumber:
		checks, value = e.decodeNumber(fd)
	}
	var assign []jen.Code
	if fd.Pointer {
		assign = []jen.Code{e.newBlock(), e.id("blk").Dot(fd.GoName).Op("=").Add(value), e.id("v").Dot(fd.GoName).Op("=").Op("&").Add(e.id("blk")).Dot(fd.GoName)}
	} else {
		assign = []jen.Code{e.id("v").Dot(fd.GoName).Op("=").Add(value)}
	}
	return e.present(fd, e.chain(fd.Property, checks, assign))
}

// convert converts x, a value as JSON decodes it, to the field's value
// type, unless it is of that type already.
func (e *formEmitter) convert(fd *fieldModel, x *jen.Statement) *jen.Statement {
	if _, basic := types.Unalias(fd.Value).(*types.Basic); basic && (fd.Kind == kindString || fd.Kind == kindBool || fd.Kind == kindNumber && !fd.Float32) {
		return x
	}
	return e.typ(fd.Value).Call(x)
}

// decodeText is the checks and the value of a property sent as a string:
// a string, a single-select, a time.
func (e *formEmitter) decodeText(fd *fieldModel) ([]check, *jen.Statement) {
	raw, ok, s := e.id("raw"), e.id("ok"), e.id("s")
	checks := []check{{jen.List(s.Clone(), ok.Clone()).Op(":=").Add(raw).Assert(jen.String()), jen.Op("!").Add(ok), impl("ReasonString"), ""}}
	switch fd.Kind {
	case kindEnum:
		checks = append(checks, check{nil, jen.Id(fd.Enum.Index).Call(s).Op("<").Lit(0), jen.Lit("must be one of " + fd.Enum.list()), fd.Enum.shown("must be one of ")})
		if fd.Enum.Named != nil {
			return checks, e.typ(fd.Value).Call(s)
		}
		return checks, s
	case kindTime:
		tm := e.id("tm")
		parse, reason := "ParseDateTime", "ReasonDateTime"
		if fd.Format == "date" {
			parse, reason = "ParseDate", "ReasonDate"
		}
		return append(checks, check{jen.List(tm.Clone(), ok).Op(":=").Add(impl(parse)).Call(s), jen.Op("!").Add(ok), impl(reason), ""}), tm
	}
	if fd.HasMin || fd.HasMax {
		lo, hi := jen.Lit(0), jen.Code(jen.Lit(int(fd.MaxInt)))
		if fd.HasMin {
			lo = jen.Lit(int(fd.MinInt))
		}
		if !fd.HasMax {
			hi = jen.Qual("math", "MaxInt")
		}
		checks = append(checks, check{nil, jen.Op("!").Add(impl("CharCountWithin")).Call(s, lo, hi), jen.Lit(boundsReason(fd, "characters")), ""})
	}
	if c, ok := e.formatCheck(fd.Format, s); ok {
		checks = append(checks, c)
	}
	return checks, e.convert(fd, s)
}

// formatCheck is the check of a string's format, if it has one.
func (e *formEmitter) formatCheck(format string, s *jen.Statement) (check, bool) {
	switch format {
	case "email":
		return check{nil, jen.Op("!").Add(impl("IsEmail")).Call(s), impl("ReasonEmail"), ""}, true
	case "uri":
		return check{nil, jen.Op("!").Add(impl("IsAbsoluteURI")).Call(s), impl("ReasonURI"), ""}, true
	case "date":
		return check{nil, jen.Op("!").Add(impl("IsDate")).Call(s), impl("ReasonDate"), ""}, true
	case "date-time":
		return check{jen.List(jen.Id("_"), e.id("ok")).Op(":=").Add(impl("ParseDateTime")).Call(s), jen.Op("!").Add(e.id("ok")), impl("ReasonDateTime"), ""}, true
	}
	return check{}, false
}

// decodeInteger is the checks and the value of an integer property: a
// whole JSON number within the bounds, which always exist.
func (e *formEmitter) decodeInteger(fd *fieldModel) ([]check, *jen.Statement) {
	n, reason := e.id("n"), e.id("reason")
	return []check{
		{jen.List(n.Clone(), reason.Clone()).Op(":=").Add(impl("Integer")).Call(e.id("raw")), reason.Clone().Op("!=").Lit(""), reason, ""},
		{nil, bounds(n, true, true, jen.Lit(int(fd.MinInt)), jen.Lit(int(fd.MaxInt))), jen.Lit(fmt.Sprintf("must be an integer from %d to %d", fd.MinInt, fd.MaxInt)), ""},
	}, e.typ(fd.Value).Call(n)
}

// decodeNumber is the checks and the value of a number property.
func (e *formEmitter) decodeNumber(fd *fieldModel) ([]check, *jen.Statement) {
	n, reason := e.id("n"), e.id("reason")
	checks := []check{{jen.List(n.Clone(), reason.Clone()).Op(":=").Add(impl("Number")).Call(e.id("raw")), reason.Clone().Op("!=").Lit(""), reason, ""}}
	if fd.HasMin || fd.HasMax {
		checks = append(checks, check{nil, bounds(n, fd.HasMin, fd.HasMax, jen.Lit(fd.MinNum), jen.Lit(fd.MaxNum)), jen.Lit(numberReason(fd)), ""})
	}
	if fd.Float32 && !(fd.HasMin && fd.HasMax) {
		// Declared bounds lie within the float32 range; one bound alone
		// leaves the other side open.
		checks = append(checks, check{nil, bounds(n, true, true, jen.Op("-").Qual("math", "MaxFloat32"), jen.Qual("math", "MaxFloat32")), impl("ReasonFloat32"), ""})
	}
	return checks, e.convert(fd, n)
}

// present is the property's if statement: body when present, the
// required failure or the default when absent.
func (e *formEmitter) present(fd *fieldModel, body ...jen.Code) jen.Code {
	s := jen.If(jen.List(e.id("raw"), e.id("ok")).Op(":=").Id("content").Index(jen.Lit(fd.Property)), e.id("ok")).Block(body...)
	switch {
	case fd.Required:
		return s.Else().Block(e.fail(fd.Property, impl("ReasonRequired")))
	case fd.Default != nil && fd.Kind == kindMulti && len(fd.Default.List) > 0:
		// A fresh slice of the default items, in the block.
		items := []jen.Code{e.id("blk").Dot(fd.GoName).Index(jen.Empty(), jen.Lit(0))}
		for _, v := range fd.Default.List {
			items = append(items, jen.Lit(v))
		}
		return s.Else().Block(e.newBlock(), e.id("v").Dot(fd.GoName).Op("=").Append(items...))
	case fd.Default != nil:
		return s.Else().Block(e.id("v").Dot(fd.GoName).Op("=").Add(e.defaultValue(fd)))
	}
	return s
}

// defaultValue spells the default value of a property.
func (e *formEmitter) defaultValue(fd *fieldModel) jen.Code {
	d := fd.Default
	switch fd.Kind {
	case kindString, kindEnum:
		return jen.Lit(d.String) // untyped constants assign to named types too
	case kindBool:
		return jen.Lit(d.Bool)
	case kindInteger:
		return jen.Lit(int(d.Int))
	case kindNumber:
		return jen.Lit(d.Num)
	case kindMulti:
		items := make([]jen.Code, len(d.List))
		for i, s := range d.List {
			items[i] = jen.Lit(s)
		}
		return e.typ(fd.Value).Values(items...)
	}
	t := d.Time
	loc := jen.Qual("time", "UTC")
	if _, off := t.Zone(); off != 0 {
		loc = jen.Qual("time", "FixedZone").Call(jen.Lit(""), jen.Lit(off))
	}
	return jen.Qual("time", "Date").Call(jen.Lit(t.Year()), jen.Qual("time", "Month").Call(jen.Lit(int(t.Month()))), jen.Lit(t.Day()),
		jen.Lit(t.Hour()), jen.Lit(t.Minute()), jen.Lit(t.Second()), jen.Lit(t.Nanosecond()), loc)
}

// decodeMulti is the decoding of a multi-select: the items go to the
// field's array in the block, a fixed-size seen array finds duplicates.
func (e *formEmitter) decodeMulti(fd *fieldModel) jen.Code {
	raw, ok := e.id("raw"), e.id("ok")
	list, reason, items, seen, it, s, i := e.id("list"), e.id("reason"), e.id("items"), e.id("seen"), e.id("it"), e.id("s"), e.id("i")
	elemType := multiElem(fd) // Value may be a named slice type
	elemValue := s.Clone()
	if _, named := types.Unalias(elemType).(*types.Named); named {
		elemValue = e.typ(elemType).Call(s)
	}
	judge := jen.If(jen.Op("!").Add(ok)).Block(reason.Clone().Op("=").Add(impl("ReasonArray")))
	if fd.HasMin || fd.HasMax {
		judge = judge.Else().If(bounds(jen.Len(list), fd.HasMin, fd.HasMax, jen.Lit(int(fd.MinInt)), jen.Lit(int(fd.MaxInt)))).Block(
			reason.Clone().Op("=").Lit(boundsReason(fd, "items")))
	}
	stop := func(why jen.Code) []jen.Code { return []jen.Code{reason.Clone().Op("=").Add(why), jen.Break()} }
	judge = judge.Else().Block(
		e.newBlock(),
		items.Clone().Op("=").Add(e.id("blk")).Dot(fd.GoName).Index(jen.Empty(), jen.Lit(0)),
		jen.Var().Add(seen).Index(jen.Lit(len(fd.Enum.Values))).Bool(),
		jen.For(jen.List(jen.Id("_"), it.Clone()).Op(":=").Range().Add(list)).Block(
			jen.List(s.Clone(), ok.Clone()).Op(":=").Add(it).Assert(jen.String()),
			jen.If(jen.Op("!").Add(ok)).Block(stop(impl("ReasonArray"))...),
			i.Clone().Op(":=").Id(fd.Enum.Index).Call(s),
			jen.If(i.Clone().Op("<").Lit(0)).Block(append(e.multiShown(fd), stop(jen.Lit("items must be among "+fd.Enum.list()))...)...),
			jen.If(seen.Clone().Index(i)).Block(stop(impl("ReasonDuplicate"))...),
			seen.Clone().Index(i).Op("=").True(),
			items.Clone().Op("=").Append(items, elemValue),
		),
	)
	return e.present(fd,
		jen.List(list.Clone(), ok.Clone()).Op(":=").Add(impl("List")).Call(raw),
		jen.Var().Add(reason).String(),
		e.multiShownVar(fd),
		jen.Var().Add(items).Index().Add(e.typ(elemType)),
		judge,
		jen.If(reason.Clone().Op("!=").Lit("")).Block(e.multiFail(fd, reason)).Else().Block(e.id("v").Dot(fd.GoName).Op("=").Add(items)),
	)
}

// multiShown sets, for a multi-select with titles, the reason of an item
// it does not offer as the form showed it; nothing otherwise.
func (e *formEmitter) multiShown(fd *fieldModel) []jen.Code {
	if shown := fd.Enum.shown("items must be among "); shown != "" {
		return []jen.Code{e.id("shown").Op("=").Lit(shown)}
	}
	return nil
}

// multiShownVar declares the shown reason of a multi-select with titles.
func (e *formEmitter) multiShownVar(fd *fieldModel) jen.Code {
	if fd.Enum.shown("") == "" {
		return jen.Null()
	}
	return jen.Var().Add(e.id("shown")).String()
}

// multiFail is a multi-select's failure with its reason, and with its
// shown reason when its enum has titles.
func (e *formEmitter) multiFail(fd *fieldModel, reason *jen.Statement) jen.Code {
	if fd.Enum.shown("") == "" {
		return e.fail(fd.Property, reason)
	}
	return e.fail(fd.Property, reason, e.id("shown"))
}

func boundsReason(fd *fieldModel, unit string) string {
	units := func(n int64) string {
		if n == 1 {
			return strings.TrimSuffix(unit, "s")
		}
		return unit
	}
	switch {
	case fd.HasMin && fd.HasMax:
		return fmt.Sprintf("must have %d to %d %s", fd.MinInt, fd.MaxInt, units(fd.MaxInt))
	case fd.HasMin:
		return fmt.Sprintf("must have at least %d %s", fd.MinInt, units(fd.MinInt))
	}
	return fmt.Sprintf("must have at most %d %s", fd.MaxInt, units(fd.MaxInt))
}

func numberReason(fd *fieldModel) string {
	lo, hi := strconv.FormatFloat(fd.MinNum, 'g', -1, 64), strconv.FormatFloat(fd.MaxNum, 'g', -1, 64)
	switch {
	case fd.HasMin && fd.HasMax:
		return fmt.Sprintf("must be a number from %s to %s", lo, hi)
	case fd.HasMin:
		return "must be at least " + lo
	}
	return "must be at most " + hi
}
