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
	"time"
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
				field, types.TypeString(t, nil), c.pkg.Name)
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
			c.errorf(pos, "field %s: enum type %s has no constants: declare its values as constants of type %s in package %s", field, name, name, c.pkg.Name)
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

// checkOptions applies the tag options that depend on the field's kind:
// bounds, format, default, enum=, and required on a pointer.
func (c *checker) checkOptions(f *fieldModel, spec tagSpec, place tagPlace) bool {
	ok := true
	at := "" // the option the next failure is about
	fail := func(format string, args ...any) {
		c.errorf(place.opt(spec.at, at), format, args...)
		ok = false
	}
	at = "required"
	if f.Required && f.Pointer {
		fail("field %s is a pointer, which makes it optional, and also required: drop required, or use a non-pointer type", f.GoName)
	}
	at = "enumnames"
	if spec.EnumNames {
		if f.Kind != kindEnum || f.Enum == nil || !f.Enum.Titled {
			fail("enumnames on field %s: it sends a titled single-select's titles as the deprecated enumNames, and %s is not a titled single-select (a string type whose constants carry //elicit:title)", f.GoName, f.GoName)
		} else {
			f.EnumNames = true
		}
	}
	at = "enum"
	if len(spec.Enum) > 0 && f.Kind != kindEnum && f.Kind != kindMulti {
		fail("enum= on field %s: only string and []string fields take an inline enum", f.GoName)
	}

	// format
	at = "format"
	if f.Format != "" {
		switch {
		case !slices.Contains(formats, f.Format):
			fail("unsupported format %q on field %s: the formats are email, uri, date and date-time", f.Format, f.GoName)
		case f.Kind == kindTime && f.Format != "date" && f.Format != "date-time":
			fail("format %q on time.Time field %s: use date or date-time", f.Format, f.GoName)
		case f.Kind != kindString && f.Kind != kindTime:
			fail("format on field %s: format applies to plain string fields only", f.GoName)
		}
	}
	if f.Kind == kindTime && f.Format == "" {
		f.Format = "date-time"
	}

	// bounds
	if spec.Min != "" || spec.Max != "" {
		switch f.Kind {
		case kindInteger:
			lo, hi := f.MinInt, f.MaxInt // the range of the Go type
			parse := func(opt, s string) int64 {
				at = opt
				n, err := strconv.ParseInt(s, 10, 64)
				switch {
				case err != nil && errors.Is(err, strconv.ErrRange), err == nil && (n < lo || n > hi):
					fail("%s=%s on field %s: outside the range of %s (%d to %d)", opt, s, f.GoName, f.Value, lo, hi)
				case err != nil:
					fail("%s=%s on field %s: want an integer", opt, s, f.GoName)
				default:
					return n
				}
				return 0
			}
			if spec.Min != "" {
				f.MinInt = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxInt = parse("max", spec.Max)
			}
		case kindNumber:
			limit := math.MaxFloat64
			if f.Float32 {
				limit = math.MaxFloat32
			}
			parse := func(opt, s string) (float64, bool) {
				at = opt
				n, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || math.Abs(n) > limit {
					fail("%s=%s on field %s: want a number in the range of %s", opt, s, f.GoName, f.Value)
					return 0, false
				}
				return n, true
			}
			if spec.Min != "" {
				f.MinNum, f.HasMin = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxNum, f.HasMax = parse("max", spec.Max)
			}
		case kindString, kindMulti:
			what := "a length"
			if f.Kind == kindMulti {
				what = "an item count"
			}
			parse := func(opt, s string) (int64, bool) {
				at = opt
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 0 || n > math.MaxInt32 {
					fail("%s=%s on field %s: want %s, a whole number from 0", opt, s, f.GoName, what)
					return 0, false
				}
				return n, true
			}
			if spec.Min != "" {
				f.MinInt, f.HasMin = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxInt, f.HasMax = parse("max", spec.Max)
			}
			if f.Kind == kindMulti && f.Enum != nil && f.HasMin && f.MinInt > int64(len(f.Enum.Values)) {
				at = "min"
				fail("min=%d on field %s: there are only %d values to choose", f.MinInt, f.GoName, len(f.Enum.Values))
			}
		default:
			at = "max"
			if spec.Min != "" {
				at = "min"
			}
			fail("min/max on field %s: bounds apply to numbers, string lengths and multi-select item counts", f.GoName)
		}
		if ok && f.HasMin && f.HasMax && (f.MinInt > f.MaxInt || f.MinNum > f.MaxNum) {
			at = "min"
			fail("min > max on field %s", f.GoName)
		}
	}

	// default
	at = "default"
	if spec.Default != nil && ok {
		if f.Pointer {
			fail("default on field %s: a pointer field is nil when absent; use a non-pointer type to have a default", f.GoName)
		} else if f.Required {
			fail("default on required field %s: a required property has no use for a default; drop one of them", f.GoName)
		} else if d, reason := parseDefault(f, *spec.Default); reason != "" {
			fail("default=%s on field %s %s", *spec.Default, f.GoName, reason)
		} else {
			f.Default = d
		}
	}
	return ok
}

// parseDefault types a default by its field and checks it against the
// field's enum, bounds and format. reason is "" when it fits.
func parseDefault(f *fieldModel, raw string) (*propDefault, string) {
	d := &propDefault{Raw: raw}
	switch f.Kind {
	case kindString:
		d.String = raw
		n := int64(utf8.RuneCountInString(raw))
		if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
			return nil, "does not fit the length bounds"
		}
		if r := formatReason(f.Format, raw); r != "" {
			return nil, r
		}
	case kindBool:
		b, err := strconv.ParseBool(raw)
		if err != nil || (raw != "true" && raw != "false") {
			return nil, "is not a boolean (true or false)"
		}
		d.Bool = b
	case kindInteger:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, "is not an integer"
		}
		if n < f.MinInt || n > f.MaxInt {
			return nil, "is out of bounds"
		}
		d.Int = n
	case kindNumber:
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "is not a number"
		}
		if f.HasMin && n < f.MinNum || f.HasMax && n > f.MaxNum || f.Float32 && math.Abs(n) > math.MaxFloat32 {
			return nil, "is out of bounds"
		}
		d.Num = n
	case kindEnum:
		if !f.Enum.has(raw) {
			return nil, "is not one of the enum values " + f.Enum.list()
		}
		d.String = raw
	case kindMulti:
		d.List = []string{}
		if raw != "" {
			d.List = strings.Split(raw, "|")
		}
		seen := map[string]bool{}
		for _, v := range d.List {
			if !f.Enum.has(v) {
				return nil, "has " + strconv.Quote(v) + ", which is not one of the enum values " + f.Enum.list()
			}
			if seen[v] {
				return nil, "repeats " + strconv.Quote(v)
			}
			seen[v] = true
		}
		n := int64(len(d.List))
		if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
			return nil, "does not fit the item count bounds"
		}
	case kindTime:
		var t time.Time
		var good bool
		if f.Format == "date" {
			t, good = format.ParseDate(raw)
		} else {
			t, good = format.ParseDateTime(raw)
		}
		if !good {
			return nil, "is not a valid " + f.Format
		}
		d.Time = t
	}
	return d, ""
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
