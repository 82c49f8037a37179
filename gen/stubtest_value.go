package gen

import (
	"go/constant"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"
)

// formValue is a valid answer to step s's form, as its Go type: each
// property with a default has it; each other required one (and a confirm
// step's boolean, true) a value its schema accepts. Pointers and the
// zero values of other properties are left out, as a person leaves them.
func formValue(p *pkgModel, s *stepModel) jen.Code {
	var fields []jen.Code
	for _, f := range s.Form.Fields {
		if f.Pointer {
			continue
		}
		v := defaultValue(p, f)
		if v == nil && (f.Required || f.Property == s.Confirm) {
			v = validValue(p, f)
		}
		if v != nil {
			fields = append(fields, jen.Id(f.GoName).Op(":").Add(v))
		}
	}
	return jen.Id(s.Form.Name).Values(fields...)
}

// confirmNoValue is formValue with the confirmation's boolean false: an
// accepted no, which reaches Declined.
func confirmNoValue(p *pkgModel, s *stepModel) jen.Code {
	var fields []jen.Code
	for _, f := range s.Form.Fields {
		if f.Property == s.Confirm {
			fields = append(fields, jen.Id(f.GoName).Op(":").False())
			continue
		}
		if v := defaultValue(p, f); !f.Pointer && v != nil {
			fields = append(fields, jen.Id(f.GoName).Op(":").Add(v))
		} else if !f.Pointer && f.Required {
			fields = append(fields, jen.Id(f.GoName).Op(":").Add(validValue(p, f)))
		}
	}
	return jen.Id(s.Form.Name).Values(fields...)
}

// defaultValue is f's default as a Go value; nil when f has none.
func defaultValue(p *pkgModel, f *fieldModel) jen.Code {
	d := f.Default
	if d == nil {
		return nil
	}
	switch f.Kind {
	case kindBool:
		return jen.Lit(d.Bool)
	case kindInteger:
		return jen.Lit(int(d.Int))
	case kindNumber:
		return jen.Lit(d.Num)
	case kindEnum:
		return enumValueExpr(p, f.Enum, d.String)
	case kindMulti:
		return multiValue(p, f, d.List)
	case kindTime:
		t := d.Time
		return jen.Qual("time", "Date").Call(jen.Lit(t.Year()), jen.Qual("time", t.Month().String()), jen.Lit(t.Day()),
			jen.Lit(t.Hour()), jen.Lit(t.Minute()), jen.Lit(t.Second()), jen.Lit(0), jen.Qual("time", "UTC"))
	}
	return jen.Lit(d.String)
}

// validValue is a value of f that its schema accepts: the first of an
// enum, 1 (or the nearest bound), true, a string of a length in bounds.
func validValue(p *pkgModel, f *fieldModel) jen.Code {
	switch f.Kind {
	case kindBool:
		return jen.True()
	case kindInteger:
		return jen.Lit(int(min(max(1, f.MinInt), f.MaxInt)))
	case kindNumber:
		v := 1.0
		if f.HasMax {
			v = min(v, f.MaxNum)
		}
		if f.HasMin {
			v = max(v, f.MinNum)
		}
		return jen.Lit(v)
	case kindEnum:
		return enumValueExpr(p, f.Enum, f.Enum.Values[0].Value)
	case kindMulti:
		n := min(max(1, int(f.MinInt)), len(f.Enum.Values))
		values := make([]string, n)
		for i := range values {
			values[i] = f.Enum.Values[i].Value
		}
		return multiValue(p, f, values)
	case kindTime:
		return jen.Qual("time", "Date").Call(jen.Lit(2026), jen.Qual("time", "January"), jen.Lit(2), jen.Lit(0), jen.Lit(0), jen.Lit(0), jen.Lit(0), jen.Qual("time", "UTC"))
	}
	return jen.Lit(stringValue(f))
}

// stringValue is a string f accepts: an address for format email or
// uri, else "example", cut or padded to f's length bounds.
func stringValue(f *fieldModel) string {
	s := "example"
	switch f.Format {
	case "email":
		s = "person@example.com"
	case "uri":
		s = "https://example.com"
	}
	if f.HasMax && int64(len(s)) > f.MaxInt {
		s = strings.Repeat("x", int(f.MaxInt))
	}
	if f.HasMin && int64(len(s)) < f.MinInt {
		s = strings.Repeat("x", int(f.MinInt))
	}
	return s
}

// multiValue is the slice of f's type holding values.
func multiValue(p *pkgModel, f *fieldModel, values []string) jen.Code {
	items := make([]jen.Code, len(values))
	for i, v := range values {
		items[i] = enumValueExpr(p, f.Enum, v)
	}
	return typeExpr(p.Path, f.Value).Values(items...)
}

// enumValueExpr spells value v of enum e: the constant of e's named type
// that has it (the first by name), else a conversion or a string.
func enumValueExpr(p *pkgModel, e *enumModel, v string) jen.Code {
	if e.Named == nil {
		return jen.Lit(v)
	}
	named, ok := types.Unalias(e.Named).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return typeExpr(p.Path, e.Named).Call(jen.Lit(v))
	}
	pkg := named.Obj().Pkg()
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok || !types.Identical(c.Type(), e.Named) || c.Val().Kind() != constant.String || constant.StringVal(c.Val()) != v {
			continue
		}
		if pkg.Path() == p.Path {
			return jen.Id(name)
		}
		if c.Exported() {
			return jen.Qual(pkg.Path(), name)
		}
	}
	return typeExpr(p.Path, e.Named).Call(jen.Lit(v))
}
