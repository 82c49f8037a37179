package gen

import (
	"errors"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/internal/format"
)

type enumEntry struct {
	enum *enumModel // nil when the type is no good enum
	// fieldErr, when set, is the problem to report at the first field
	// that uses the type.
	fieldErr func(pos token.Pos, field string)
	used     bool
}

// enumOf collects the constants of the named string type t, in source order,
// with their //elicit:title directives. Problems are reported once per type:
// those of the type itself where they are, one about its use at the first
// field that uses it.
func (c *checker) enumOf(t types.Type, pos token.Pos, field string) *enumModel {
	e := c.enums[t]
	if e == nil {
		e = &enumEntry{}
		e.enum, e.fieldErr = c.readEnum(t)
		c.enums[t] = e
	}
	if !e.used && e.fieldErr != nil {
		e.fieldErr(pos, field)
	}
	e.used = true
	return e.enum
}

// titledConstants reports whether t, a named type of the package, has a
// constant with an //elicit:title directive.
func (c *checker) titledConstants(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() != c.pkg.Types {
		return false
	}
	found := false
	c.eachConst(t, func(*ast.Ident, *types.Const, string, bool) { found = true }, true)
	return found
}

// readEnum reads the enum type t. Problems of the type itself are reported;
// one to report at the first field using it is returned.
func (c *checker) readEnum(t types.Type) (*enumModel, func(token.Pos, string)) {
	named := types.Unalias(t).(*types.Named)
	name := named.Obj().Name()
	if named.Obj().Pkg() != c.pkg.Types {
		return nil, func(pos token.Pos, field string) {
			c.errorf(pos, "field %s: enum type %s is declared in another package; elicitgen reads an enum's constants and titles from source, so declare it in package %s",
				field, types.TypeString(t, nil), c.pkg.Types.Name())
		}
	}
	enum := &enumModel{Named: t}
	var titled, untitled []token.Pos
	seen := map[string]token.Pos{}
	bad := false
	c.eachConst(t, func(id *ast.Ident, obj *types.Const, title string, has bool) {
		if obj.Val().Kind() != constant.String {
			return
		}
		value := constant.StringVal(obj.Val())
		if prev, dup := seen[value]; dup {
			c.errorf(id.Pos(), "enum type %s: constant %s repeats the value %q of %s", name, id.Name, value, c.relPos(prev))
			bad = true
			return
		}
		seen[value] = id.Pos()
		if has && title == "" {
			c.errorf(id.Pos(), "enum type %s: constant %s has an empty //elicit:title", name, id.Name)
			bad = true
		}
		if has {
			titled = append(titled, id.Pos())
		} else {
			untitled = append(untitled, id.Pos())
		}
		enum.Values = append(enum.Values, enumValue{Value: value, Title: title})
	}, false)
	switch {
	case len(enum.Values) == 0:
		return nil, func(pos token.Pos, field string) {
			c.errorf(pos, "field %s: enum type %s has no constants: declare its values as constants of type %s in package %s", field, name, name, c.pkg.Types.Name())
		}
	case len(titled) > 0 && len(untitled) > 0:
		for _, p := range untitled {
			c.errorf(p, "enum type %s: this constant has no //elicit:title while others have one; title every constant or none", name)
		}
		return nil, nil
	case bad:
		return nil, nil
	}
	enum.Titled = len(titled) > 0
	return enum, nil
}

// eachConst calls fn, in source order, for each constant of type t declared
// in the package's own files, with its //elicit:title (has reports the
// directive); only for the titled ones when titledOnly.
func (c *checker) eachConst(t types.Type, fn func(id *ast.Ident, obj *types.Const, title string, has bool), titledOnly bool) {
	for _, file := range c.pkg.Syntax {
		if isOurs(sourceName(c.fset, file), file) {
			continue
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, id := range vs.Names {
					obj, ok := c.pkg.TypesInfo.Defs[id].(*types.Const)
					if !ok || !types.Identical(obj.Type(), t) {
						continue
					}
					title, has := directiveArg(c.fixDoc(vs.Doc), directiveTitle)
					if !has {
						title, has = directiveArg(c.fixDoc(vs.Comment), directiveTitle)
					}
					if !has && len(gd.Specs) == 1 {
						title, has = directiveArg(c.fixDoc(gd.Doc), directiveTitle)
					}
					if has || !titledOnly {
						fn(id, obj, title, has)
					}
				}
			}
		}
	}
}

// formats lists the string formats of the 2026-07-28 schema subset.
var formats = []string{"email", "uri", "date", "date-time"}

// An optionRule is the rule of a form field's option that depends on what
// the field is (min and max share one). A rule applies when the tag gives
// one of its keys; its problems are reported at the first key given.
type optionRule struct {
	keys []string
	// values, when set, are the option's only values; badValue is the
	// problem with another, formatted with the value and the field's name.
	values   []string
	badValue string
	// kinds, when set, are the kinds of field the option is for;
	// notForKind is the problem on another, formatted with the field's name.
	kinds      []propKind
	notForKind string
	// check checks the option against the field, and applies it.
	check func(o *optionCheck)
}

// optionRules are checked in this order, each on the field as the rules
// before it left it; default, last, only on a field without problems.
var optionRules = []optionRule{
	{keys: []string{"required"}, check: (*optionCheck).required},
	{keys: []string{"enumnames"}, check: (*optionCheck).enumNames},
	{
		keys:  []string{"enum"},
		kinds: []propKind{kindEnum, kindMulti}, notForKind: "enum= on field %s: only string and []string fields take an inline enum",
	},
	{
		keys:   []string{"format"},
		values: formats, badValue: "unsupported format %q on field %s: the formats are email, uri, date and date-time",
		kinds: []propKind{kindString, kindTime}, notForKind: "format on field %s: format applies to plain string fields only",
		check: (*optionCheck).format,
	},
	{
		keys:  []string{"min", "max"},
		kinds: []propKind{kindInteger, kindNumber, kindString, kindMulti}, notForKind: "min/max on field %s: bounds apply to numbers, string lengths and multi-select item counts",
		check: (*optionCheck).bounds,
	},
	{keys: []string{"default"}, check: (*optionCheck).defaultValue},
}

// optionCheck is the check of one field's options.
type optionCheck struct {
	c     *checker
	f     *fieldModel
	spec  tagSpec
	place tagPlace
	ok    bool // no problem so far
}

// fail reports a problem at option key.
func (o *optionCheck) fail(key, format string, args ...any) {
	o.c.errorf(o.place.opt(o.spec.at, key), format, args...)
	o.ok = false
}

// checkOptions applies the tag options that depend on the field's kind,
// by optionRules: bounds, format, default, enum=, enumnames, and required
// on a pointer.
func (c *checker) checkOptions(f *fieldModel, spec tagSpec, place tagPlace) bool {
	o := &optionCheck{c: c, f: f, spec: spec, place: place, ok: true}
	for _, r := range optionRules {
		i := slices.IndexFunc(r.keys, func(k string) bool { _, given := spec.at[k]; return given })
		if i < 0 {
			continue
		}
		key := r.keys[i]
		switch value := spec.at[key].value; {
		case r.values != nil && !slices.Contains(r.values, value):
			o.fail(key, r.badValue, value, f.GoName)
		case r.kinds != nil && !slices.Contains(r.kinds, f.Kind):
			o.fail(key, r.notForKind, f.GoName)
		case r.check != nil:
			r.check(o)
		}
	}
	return o.ok
}

func (o *optionCheck) required() {
	if o.f.Pointer {
		o.fail("required", "field %s is a pointer, which makes it optional, and also required: drop required, or use a non-pointer type", o.f.GoName)
	}
}

func (o *optionCheck) enumNames() {
	f := o.f
	if f.Kind != kindEnum || f.Enum == nil || !f.Enum.Titled {
		o.fail("enumnames", "enumnames on field %s: it sends a titled single-select's titles as the deprecated enumNames, and %s is not a titled single-select (a string type whose constants carry //elicit:title)", f.GoName, f.GoName)
		return
	}
	f.EnumNames = true
}

func (o *optionCheck) format() {
	if f := o.f; f.Kind == kindTime && f.Format != "date" && f.Format != "date-time" {
		o.fail("format", "format %q on time.Time field %s: use date or date-time", f.Format, f.GoName)
	}
}

// bounds reads min and max by the field's kind: values of a number,
// lengths of a string, item counts of a multi-select.
func (o *optionCheck) bounds() {
	f := o.f
	switch f.Kind {
	case kindInteger:
		o.intBounds()
	case kindNumber:
		o.numberBounds()
	default:
		o.countBounds()
	}
	if o.ok && f.HasMin && f.HasMax && (f.MinInt > f.MaxInt || f.MinNum > f.MaxNum) {
		o.fail("min", "min > max on field %s", f.GoName)
	}
}

// intBounds reads the bounds of an integer, within its Go type's range.
func (o *optionCheck) intBounds() {
	f := o.f
	lo, hi := f.MinInt, f.MaxInt // the range of the Go type
	parse := func(opt string) int64 {
		s := o.spec.at[opt].value
		n, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange), err == nil && (n < lo || n > hi):
			o.fail(opt, "%s=%s on field %s: outside the range of %s (%d to %d)", opt, s, f.GoName, f.Value, lo, hi)
		case err != nil:
			o.fail(opt, "%s=%s on field %s: want an integer", opt, s, f.GoName)
		default:
			return n
		}
		return 0
	}
	if o.spec.Min != "" {
		f.MinInt = parse("min")
	}
	if o.spec.Max != "" {
		f.MaxInt = parse("max")
	}
}

// numberBounds reads the bounds of a float, within its Go type's range.
func (o *optionCheck) numberBounds() {
	f := o.f
	limit := math.MaxFloat64
	if f.Float32 {
		limit = math.MaxFloat32
	}
	parse := func(opt string) (float64, bool) {
		s := o.spec.at[opt].value
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || math.Abs(n) > limit {
			o.fail(opt, "%s=%s on field %s: want a number in the range of %s", opt, s, f.GoName, f.Value)
			return 0, false
		}
		return n, true
	}
	if o.spec.Min != "" {
		f.MinNum, f.HasMin = parse("min")
	}
	if o.spec.Max != "" {
		f.MaxNum, f.HasMax = parse("max")
	}
}

// countBounds reads the bounds of a string's length or of a multi-select's
// item count.
func (o *optionCheck) countBounds() {
	f := o.f
	what := "a length"
	if f.Kind == kindMulti {
		what = "an item count"
	}
	parse := func(opt string) (int64, bool) {
		s := o.spec.at[opt].value
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			o.fail(opt, "%s=%s on field %s: want %s, a whole number from 0", opt, s, f.GoName, what)
			return 0, false
		}
		return n, true
	}
	if o.spec.Min != "" {
		f.MinInt, f.HasMin = parse("min")
	}
	if o.spec.Max != "" {
		f.MaxInt, f.HasMax = parse("max")
	}
	if f.Kind == kindMulti && f.Enum != nil && f.HasMin && f.MinInt > int64(len(f.Enum.Values)) {
		o.fail("min", "min=%d on field %s: there are only %d values to choose", f.MinInt, f.GoName, len(f.Enum.Values))
	}
}

// defaultValue types the default by the field. A field with a problem
// already is not asked about its default too.
func (o *optionCheck) defaultValue() {
	f, raw := o.f, *o.spec.Default
	switch {
	case !o.ok:
	case f.Pointer:
		o.fail("default", "default on field %s: a pointer field is nil when absent; use a non-pointer type to have a default", f.GoName)
	case f.Required:
		o.fail("default", "default on required field %s: a required property has no use for a default; drop one of them", f.GoName)
	default:
		if d, reason := parseDefault(f, raw); reason != "" {
			o.fail("default", "default=%s on field %s %s", raw, f.GoName, reason)
		} else {
			f.Default = d
		}
	}
}

// parseDefault types a default by its field and checks it against the
// field's enum, bounds and format. reason is "" when it fits.
func parseDefault(f *fieldModel, raw string) (*propDefault, string) {
	d := &propDefault{Raw: raw}
	if reason := defaultParsers[f.Kind](f, raw, d); reason != "" {
		return nil, reason
	}
	return d, ""
}

// defaultParsers type a default, by the kind of its field, into d, and say
// why it does not fit the field ("" when it does).
var defaultParsers = map[propKind]func(f *fieldModel, raw string, d *propDefault) string{
	kindString: func(f *fieldModel, raw string, d *propDefault) string {
		d.String = raw
		n := int64(utf8.RuneCountInString(raw))
		if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
			return "does not fit the length bounds"
		}
		return formatReason(f.Format, raw)
	},
	kindBool: func(_ *fieldModel, raw string, d *propDefault) string {
		b, err := strconv.ParseBool(raw)
		if err != nil || (raw != "true" && raw != "false") {
			return "is not a boolean (true or false)"
		}
		d.Bool = b
		return ""
	},
	kindInteger: func(f *fieldModel, raw string, d *propDefault) string {
		n, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err != nil:
			return "is not an integer"
		case n < f.MinInt || n > f.MaxInt:
			return "is out of bounds"
		}
		d.Int = n
		return ""
	},
	kindNumber: func(f *fieldModel, raw string, d *propDefault) string {
		n, err := strconv.ParseFloat(raw, 64)
		switch {
		case err != nil || math.IsInf(n, 0) || math.IsNaN(n):
			return "is not a number"
		case f.HasMin && n < f.MinNum || f.HasMax && n > f.MaxNum || f.Float32 && math.Abs(n) > math.MaxFloat32:
			return "is out of bounds"
		}
		d.Num = n
		return ""
	},
	kindEnum: func(f *fieldModel, raw string, d *propDefault) string {
		if !f.Enum.has(raw) {
			return "is not one of the enum values " + f.Enum.list()
		}
		d.String = raw
		return ""
	},
	kindMulti: multiDefault,
	kindTime: func(f *fieldModel, raw string, d *propDefault) string {
		parse := format.ParseDateTime
		if f.Format == "date" {
			parse = format.ParseDate
		}
		t, good := parse(raw)
		if !good {
			return "is not a valid " + f.Format
		}
		d.Time = t
		return ""
	},
}

// multiDefault types the default of a multi-select: values of its enum,
// each once, as many as its bounds allow, separated by "|".
func multiDefault(f *fieldModel, raw string, d *propDefault) string {
	d.List = []string{}
	if raw != "" {
		d.List = strings.Split(raw, "|")
	}
	seen := map[string]bool{}
	for _, v := range d.List {
		if !f.Enum.has(v) {
			return "has " + strconv.Quote(v) + ", which is not one of the enum values " + f.Enum.list()
		}
		if seen[v] {
			return "repeats " + strconv.Quote(v)
		}
		seen[v] = true
	}
	n := int64(len(d.List))
	if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
		return "does not fit the item count bounds"
	}
	return ""
}

// formatReason checks a string against a format at generate time.
func formatReason(name, s string) string {
	switch name {
	case "email":
		if !format.IsEmail(s) {
			return "is not an email address"
		}
	case "uri":
		if !format.IsAbsoluteURI(s) {
			return "is not an absolute URI"
		}
	case "date":
		if _, ok := format.ParseDate(s); !ok {
			return "is not a valid date"
		}
	case "date-time":
		if _, ok := format.ParseDateTime(s); !ok {
			return "is not a valid date-time"
		}
	}
	return ""
}
