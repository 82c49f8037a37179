package gen

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// isForm reports whether ts is a form: marked //elicit:form or with a field
// that has an elicit tag.
func isForm(ts *ast.TypeSpec, doc *ast.CommentGroup) bool {
	if hasDirective(doc, directiveForm) {
		return true
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok || st.Fields == nil {
		return false
	}
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			continue
		}
		raw, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			continue
		}
		if _, ok := reflect.StructTag(raw).Lookup("elicit"); ok || hasElicitKey(raw) {
			return true
		}
	}
	return false
}

func (c *checker) checkTypeSpec(ts *ast.TypeSpec, doc *ast.CommentGroup) *formModel {
	if !isForm(ts, doc) {
		return nil
	}
	astStruct, st := c.formStruct(ts)
	if st == nil {
		return nil
	}
	form := &formModel{Name: ts.Name.Name}
	shapeOK := true
	claimed := map[string]claim{}
	for _, sf := range structFields(astStruct, st) {
		v := sf.v
		form.Shape = append(form.Shape, shapeField{Name: v.Name(), Type: v.Type(), Embedded: v.Embedded()})
		shapeOK = shapeOK && spellable(v.Type())
		field, fieldOK := c.checkField(sf)
		// A rejected field still claims its property name, so that a
		// clash is reported in the same run.
		if field != nil && c.claimProperty(claimed, field, sf.pos) && fieldOK {
			form.Fields = append(form.Fields, field)
		}
	}
	if !shapeOK {
		form.Shape = nil
	}
	form.Schema = buildSchema(form)
	return form
}

// formStruct is the struct of a form's type spec, as written and as
// typed; nil when it cannot be a form (reported, unless the type checker
// did).
func (c *checker) formStruct(ts *ast.TypeSpec) (*ast.StructType, *types.Struct) {
	name := ts.Name.Name
	if ts.Assign.IsValid() {
		c.errorf(ts.Name.Pos(), "alias %s cannot be a form: mark the struct type it names", name)
		return nil, nil
	}
	if ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
		c.errorf(ts.Name.Pos(), "generic type %s cannot be a form: a form's schema is fixed at generate time", name)
		return nil, nil
	}
	astStruct, ok := ts.Type.(*ast.StructType)
	if !ok {
		c.errorf(ts.Name.Pos(), "%s is marked //elicit:form but is not a struct type", name)
		return nil, nil
	}
	obj, _ := c.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil, nil
	}
	st, _ := obj.Type().Underlying().(*types.Struct)
	return astStruct, st
}

// claim is the field that named a property first, and where.
type claim struct {
	field *fieldModel
	pos   token.Pos
}

// claimProperty claims field's property name for it, or reports the
// field that has it.
func (c *checker) claimProperty(claimed map[string]claim, field *fieldModel, pos token.Pos) bool {
	if prev, dup := claimed[field.Property]; dup {
		c.errorf(pos, "property name %q of field %s is also used by field %s at %s", field.Property, field.GoName, prev.field.GoName, c.relPos(prev.pos))
		return false
	}
	claimed[field.Property] = claim{field, pos}
	return true
}

// tagPlace places the offsets of a field's elicit value in the source.
type tagPlace struct {
	lit   *ast.BasicLit // the tag literal; nil without one
	base  int           // offset of the elicit value in lit, or -1
	field token.Pos
}

func (c *checker) placeTag(af *ast.Field, pos token.Pos, t elicitTag) tagPlace {
	p := tagPlace{lit: af.Tag, base: -1, field: pos}
	// Offsets map to columns in a raw string literal (no escapes; carriage
	// returns are dropped from its value, so none may be there).
	if af.Tag != nil && t.off >= 0 && strings.HasPrefix(af.Tag.Value, "`") && !strings.Contains(af.Tag.Value, "\r") {
		p.base = 1 + t.off
	}
	return p
}

// at is the position of offset off of the elicit value: the tag's start
// when offsets do not map, the field without a tag.
func (p tagPlace) at(off int) token.Pos {
	switch {
	case p.lit == nil:
		return p.field
	case off < 0 || p.base < 0:
		return p.lit.Pos()
	}
	return p.lit.Pos() + token.Pos(p.base+off)
}

// edit is fix as an edit of the source; no edit when there is no fix or
// the offsets do not map to columns.
func (p tagPlace) edit(fix *tagFix) Edit {
	if fix == nil || p.lit == nil || p.base < 0 {
		return Edit{}
	}
	return Edit{Pos: p.at(fix.off), End: p.at(fix.end), Text: fix.text}
}

// tag is the position of the tag as a whole.
func (p tagPlace) tag() token.Pos { return p.at(-1) }

// opt is the position of an option of spec, or of the tag.
func (p tagPlace) opt(at map[string]tagOption, key string) token.Pos {
	if o, ok := at[key]; ok {
		return p.at(o.off)
	}
	return p.tag()
}

// checkField turns one struct field into a property, or reports why not.
// It returns nil for skipped and ignored fields and for those whose property
// name is unknown; ok is false when the field is rejected.
func (c *checker) checkField(sf structField) (field *fieldModel, ok bool) {
	v, pos := sf.v, sf.pos
	t, problems := readTag(sf.tag)
	place := c.placeTag(sf.af, pos, t)
	spec, more := parseFormTag(t)
	problems = append(problems, more...)
	for _, p := range problems {
		c.fixf(place.at(p.off), place.edit(p.fix), "%s", p.msg)
	}
	if len(problems) > 0 || spec.Skip {
		return nil, false
	}
	property, ok := c.propertyName(sf, spec, t, place)
	if !ok {
		return nil, false
	}
	field = &fieldModel{
		GoName:   v.Name(),
		Property: property,
		Type:     v.Type(),
		Value:    v.Type(),
		Required: spec.Required,
		Title:    spec.Title,
		Format:   spec.Format,
	}
	doc := c.fixDoc(sf.af.Doc)
	title, _ := directiveArg(doc, directiveTitle)
	field.Title = cmp.Or(field.Title, title, nameTitle(v.Name()))
	field.Description = cmp.Or(docText(doc, v.Name()), docText(c.fixDoc(sf.af.Comment), v.Name()))

	if !c.classify(field, spec, pos, place) {
		return field, false
	}
	ok = c.checkOptions(field, spec, place)
	if !spec.NotSecret && !c.checkSecret(field, pos) {
		ok = false
	}
	return field, ok
}

// propertyName is the property name of the field: its tag's, its json
// tag's, or its Go name. ok is false for a field that is no property
// (embedded, unexported, skipped by json), or whose name cannot be one.
func (c *checker) propertyName(sf structField, spec tagSpec, t elicitTag, place tagPlace) (string, bool) {
	v, pos := sf.v, sf.pos
	if v.Embedded() {
		c.errorf(pos, "embedded field %s: a form is flat; declare its fields directly, or skip it with elicit:\"-\"", v.Name())
		return "", false
	}
	if !v.Exported() {
		if spec.Present {
			c.errorf(pos, "unexported field %s has an elicit tag: only exported fields become properties", v.Name())
		}
		return "", false
	}
	property := spec.Name
	if property == "" {
		jsonName, skip := jsonFieldName(sf.tag)
		switch {
		case skip && spec.Present:
			c.errorf(place.tag(), "field %s is skipped by its json tag: name the property in the elicit tag, or skip it with elicit:\"-\"", v.Name())
			return "", false
		case skip:
			return "", false
		}
		property = cmp.Or(jsonName, v.Name())
	}
	if strings.ContainsAny(property, " \t\r\n\"\\") {
		at := place.tag()
		if spec.Name != "" {
			at = place.at(t.nameOff)
		}
		c.errorf(at, "property name %q of field %s must not contain spaces, quotes or backslashes", property, v.Name())
		return "", false
	}
	return property, true
}

// checkSecret reports a field that looks secret: form mode must not
// collect it.
func (c *checker) checkSecret(field *fieldModel, pos token.Pos) bool {
	names := []string{field.GoName, field.Property, field.Title}
	if n := namedTypeName(field.Value); n != "" {
		names = append(names, n)
	}
	w := secretWord(names...)
	if w == "" {
		return true
	}
	c.errorf(pos, "field %s looks secret (%q): form mode must not collect passwords, API keys, tokens or payment credentials; "+
		"collect it through a URL step instead (a tool step of type elicitrt.URLStep: the user enters it on your own page), or add notsecret to its elicit tag if it is not a secret", field.GoName, w)
	return false
}

// namedTypeName is the name of t's named type, or of its element's for a
// slice.
func namedTypeName(t types.Type) string {
	if s, ok := t.(*types.Slice); ok {
		t = s.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// jsonFieldName returns the json tag's name, and whether json skips it.
func jsonFieldName(rawTag string) (string, bool) {
	j, ok := reflect.StructTag(rawTag).Lookup("json")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(j, ",")
	if name == "-" && !strings.HasPrefix(j, "-,") {
		return "", true
	}
	return name, false
}

// classify decides the field's Kind from its Go type, or reports why the
// type cannot be a property.
func (c *checker) classify(f *fieldModel, spec tagSpec, pos token.Pos, place tagPlace) bool {
	t := types.Unalias(f.Type)
	if p, ok := t.(*types.Pointer); ok {
		f.Pointer = true
		t = types.Unalias(p.Elem())
		f.Value = p.Elem()
		switch u := t.Underlying().(type) {
		case *types.Struct:
			if !isTime(t) {
				c.errorf(pos, "field %s is a pointer to a struct: a form is flat; declare the fields directly, or use a separate form", f.GoName)
				return false
			}
		case *types.Pointer:
			c.errorf(pos, "field %s is a pointer to a pointer: use a single pointer for an optional property", f.GoName)
			return false
		case *types.Slice:
			c.errorf(pos, "field %s is a pointer to a slice: use the slice itself (a nil slice is an absent multi-select)", f.GoName)
			return false
		default:
			_ = u
		}
	}
	if isDuration(t) {
		c.errorf(pos, "field %s is a time.Duration, which would be an integer of nanoseconds in the form: %s", f.GoName, durationHint)
		return false
	}
	if isTime(t) {
		f.Kind = kindTime
		f.Format = cmp.Or(f.Format, "date-time") // format= may say date
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return c.classifyBasic(f, t, u, spec, pos, place)
	case *types.Slice:
		return c.classifySlice(f, u, spec, pos, place)
	case *types.Struct:
		c.errorf(pos, "field %s is a nested struct: a form is flat; declare its fields directly, or ask with a separate form", f.GoName)
	case *types.Map:
		c.errorf(pos, "field %s is a map: form properties are flat primitives (string, number, boolean, enum)", f.GoName)
	case *types.Array:
		c.errorf(pos, "field %s is an array: use a slice of an enum type for a multi-select", f.GoName)
	case *types.Interface:
		c.errorf(pos, "field %s is an interface: a property needs a concrete primitive type", f.GoName)
	case *types.Chan:
		c.errorf(pos, "field %s is a channel: form properties are flat primitives", f.GoName)
	case *types.Signature:
		c.errorf(pos, "field %s is a func: form properties are flat primitives", f.GoName)
	default:
		c.errorf(pos, "field %s has unsupported type %s", f.GoName, types.TypeString(t, types.RelativeTo(c.pkg.Types)))
	}
	return false
}

func isTime(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Time"
}

func (c *checker) classifyBasic(f *fieldModel, t types.Type, b *types.Basic, spec tagSpec, pos token.Pos, place tagPlace) bool {
	info := b.Info()
	if b.Kind() != types.String {
		// The 2026-07-28 schema subset has enums of strings only: titled
		// values of a number or boolean would be dropped.
		typeName := types.TypeString(t, types.RelativeTo(c.pkg.Types))
		switch {
		case len(spec.Enum) > 0:
			c.errorf(place.opt(spec.at, "enum"), "field %s: enum= on %s, but the schema's enums are strings only: make the field a string with enum=%s, or a string type with constants of those values",
				f.GoName, typeName, strings.Join(spec.Enum, "|"))
			return false
		case c.titledConstants(t):
			c.errorf(pos, "field %s: type %s has constants with //elicit:title, but %s is not a string and the schema's enums are strings only, so the titles would be lost: "+
				"declare type %s string with constants \"15\", \"30\"... (titled as now), or drop the titles for a plain %s",
				f.GoName, typeName, typeName, typeName, b.Name())
			return false
		}
	}
	switch {
	case b.Kind() == types.String:
		if _, named := t.(*types.Named); named {
			if len(spec.Enum) > 0 {
				c.errorf(place.opt(spec.at, "enum"), "field %s: enum= is for string; the constants of %s define its values", f.GoName, namedTypeName(t))
				return false
			}
			enum := c.enumOf(t, pos, f.GoName)
			if enum == nil {
				return false
			}
			f.Kind = kindEnum
			f.Enum = enum
			return true
		}
		if len(spec.Enum) > 0 {
			f.Kind = kindEnum
			f.Enum = &enumModel{}
			for _, v := range spec.Enum {
				f.Enum.Values = append(f.Enum.Values, enumValue{Value: v})
			}
			return true
		}
		f.Kind = kindString
	case b.Kind() == types.Bool:
		f.Kind = kindBool
	case b.Kind() == types.Uintptr:
		c.errorf(pos, "field %s is a uintptr: use an integer type", f.GoName)
		return false
	case info&types.IsInteger != 0:
		f.Kind = kindInteger
		f.HasMin, f.HasMax = true, true
		f.MinInt, f.MaxInt = intRange(b.Kind())
	case b.Kind() == types.Float32 || b.Kind() == types.Float64:
		f.Kind = kindNumber
		f.Float32 = b.Kind() == types.Float32
	default:
		c.errorf(pos, "field %s has unsupported type %s: use string, bool, an integer or a float", f.GoName, b.Name())
		return false
	}
	return true
}

// intRange is the range of an integer kind, intersected with the integers a
// JSON number carries exactly (±2^53-1).
func intRange(k types.BasicKind) (int64, int64) {
	const safe = 1<<53 - 1
	switch k {
	case types.Int8:
		return math.MinInt8, math.MaxInt8
	case types.Int16:
		return math.MinInt16, math.MaxInt16
	case types.Int32:
		return math.MinInt32, math.MaxInt32
	case types.Uint8:
		return 0, math.MaxUint8
	case types.Uint16:
		return 0, math.MaxUint16
	case types.Uint32:
		return 0, math.MaxUint32
	case types.Uint, types.Uint64:
		return 0, safe
	}
	return -safe, safe
}

func (c *checker) classifySlice(f *fieldModel, s *types.Slice, spec tagSpec, pos token.Pos, place tagPlace) bool {
	elem := types.Unalias(s.Elem())
	b, ok := elem.Underlying().(*types.Basic)
	if !ok || b.Kind() != types.String {
		c.errorf(pos, "field %s is a slice of %s: the only slices a form takes are multi-selects, a slice of an enum type or []string with enum=a|b|c",
			f.GoName, types.TypeString(elem, types.RelativeTo(c.pkg.Types)))
		return false
	}
	f.Kind = kindMulti
	if _, named := elem.(*types.Named); named {
		if len(spec.Enum) > 0 {
			c.errorf(place.opt(spec.at, "enum"), "field %s: enum= is for []string; the constants of %s define its values", f.GoName, namedTypeName(elem))
			return false
		}
		f.Enum = c.enumOf(elem, pos, f.GoName)
		return f.Enum != nil
	}
	if len(spec.Enum) == 0 {
		c.errorf(pos, "field %s is a []string without enum=: a multi-select needs its values, as enum=a|b|c or a slice of an enum type", f.GoName)
		return false
	}
	f.Enum = &enumModel{}
	for _, v := range spec.Enum {
		f.Enum.Values = append(f.Enum.Values, enumValue{Value: v})
	}
	return true
}

// spellable reports whether the stale check can spell t in Go source.
func spellable(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return t.Kind() != types.UnsafePointer && t.Info()&types.IsUntyped == 0
	case *types.Named:
		return t.TypeArgs().Len() == 0 && t.Obj().Pkg() != nil
	case *types.Pointer:
		return spellable(t.Elem())
	case *types.Slice:
		return spellable(t.Elem())
	case *types.Array:
		return spellable(t.Elem())
	case *types.Map:
		return spellable(t.Key()) && spellable(t.Elem())
	case *types.Interface:
		return t.Empty()
	}
	return false
}

// durationHint says what to declare instead of a time.Duration.
const durationHint = "declare a number of seconds (an integer field such as TimeoutSeconds int) or a string parsed with time.ParseDuration (such as \"90s\")"

// isDuration reports whether t is time.Duration.
func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration"
}
