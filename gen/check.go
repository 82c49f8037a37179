package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Directives, in doc comments.
const (
	directiveForm  = "//elicit:form"
	directiveTitle = "//elicit:title"
)

// checkPackages finds the forms of pkgs and applies every rule. It returns the model
// and every diagnostic at once, sorted; the model is only to be used when
// there are none.
func checkPackages(pkgs []*packages.Package, fset *token.FileSet) (*model, Diagnostics) {
	c := &checker{fset: fset}
	m := &model{}
	sorted := slices.Clone(pkgs)
	slices.SortFunc(sorted, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	for _, pkg := range sorted {
		if p := c.checkPackage(pkg); p != nil {
			m.Packages = append(m.Packages, p)
		}
	}
	return m, sortDiagnostics(c.diags)
}

type checker struct {
	fset  *token.FileSet
	pkg   *packages.Package
	diags Diagnostics
	// enums are the enum types of the package being checked, each read
	// once; its problems are reported at the first field that uses it.
	enums map[types.Type]*enumEntry
	// tools are the tool declarations of the package being checked,
	// resolved once all its forms are known.
	tools []pendingTool
	// fixed are the comment groups of the package with a line that is
	// almost a directive, as checked: with it written right.
	fixed map[*ast.CommentGroup]*ast.CommentGroup
	// declared are the tool, prompt and resource names of the package
	// being checked, by kind and name, where first declared.
	declared map[string]declaredAt
}

type enumEntry struct {
	enum *enumModel // nil when the type is no good enum
	// fieldErr, when set, is the problem to report at the first field
	// that uses the type.
	fieldErr func(pos token.Pos, field string)
	used     bool
}

func (c *checker) errorf(pos token.Pos, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: c.fset.Position(pos), Message: fmt.Sprintf(format, args...)})
}

func (c *checker) checkPackage(pkg *packages.Package) *pkgModel {
	if pkg.Types == nil || pkg.TypesInfo == nil {
		return nil
	}
	c.pkg = pkg
	c.enums, c.fixed = map[types.Type]*enumEntry{}, map[*ast.CommentGroup]*ast.CommentGroup{}
	c.tools = nil
	p := &pkgModel{Path: pkg.PkgPath, Name: pkg.Name, types: pkg.Types}
	for _, f := range pkg.Syntax {
		name := sourceName(c.fset, f)
		if p.Dir == "" {
			p.Dir = filepath.Dir(name)
		}
		if isOurs(name, f) {
			p.Generated = append(p.Generated, name)
			continue
		}
		if strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go") {
			continue
		}
		bad := c.checkDirectives(f)
		file := &fileModel{Source: name, Output: strings.TrimSuffix(name, ".go") + generatedSuffix}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := c.fixDoc(ts.Doc)
				if len(gd.Specs) == 1 && !hasDirective(doc, directiveForm) && gd.Doc != nil {
					doc = c.fixDoc(gd.Doc) // type (...) with one spec: its doc may carry the directive
				}
				switch {
				case bad[doc]:
					// A misspelt directive: reported; not taken for a form.
				case isDecl(doc):
					c.tools = append(c.tools, pendingTool{file: file, spec: ts, doc: doc})
				default:
					if cm := directiveComment(doc, directiveTask); cm != nil {
						c.errorf(cm.Pos(), "//elicit:task is for tools: it goes next to //elicit:tool NAME, and %s declares no tool", ts.Name.Name)
					}
					if form := c.checkTypeSpec(ts, doc); form != nil {
						file.Forms = append(file.Forms, form)
					}
				}
			}
		}
		p.Files = append(p.Files, file)
	}
	c.resolveTools(p)
	slices.SortFunc(p.Files, func(a, b *fileModel) int { return strings.Compare(a.Source, b.Source) })
	c.nameGenerated(p)
	if len(p.Files) == 0 && len(p.Generated) == 0 {
		return nil
	}
	return p
}

// directives are the //elicit: directives, by their word.
var directives = []string{"annotations", "form", "prompt", "resource", "task", "title", "tool"}

// hasDirective reports whether doc carries the directive line d.
func hasDirective(doc *ast.CommentGroup, d string) bool {
	_, ok := directiveArg(doc, d)
	return ok
}

// directiveArg returns the text after directive d in doc.
func directiveArg(doc *ast.CommentGroup, d string) (string, bool) {
	if doc == nil {
		return "", false
	}
	for _, c := range doc.List {
		if c.Text == d {
			return "", true
		}
		if rest, ok := strings.CutPrefix(c.Text, d+" "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// directiveComment returns the comment of doc that carries directive d, or
// nil.
func directiveComment(doc *ast.CommentGroup, d string) *ast.Comment {
	if doc == nil {
		return nil
	}
	for _, c := range doc.List {
		if c.Text == d || strings.HasPrefix(c.Text, d+" ") {
			return c
		}
	}
	return nil
}

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
	name := ts.Name.Name
	if ts.Assign.IsValid() {
		c.errorf(ts.Name.Pos(), "alias %s cannot be a form: mark the struct type it names", name)
		return nil
	}
	if ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
		c.errorf(ts.Name.Pos(), "generic type %s cannot be a form: a form's schema is fixed at generate time", name)
		return nil
	}
	astStruct, ok := ts.Type.(*ast.StructType)
	if !ok {
		c.errorf(ts.Name.Pos(), "%s is marked //elicit:form but is not a struct type", name)
		return nil
	}
	obj, _ := c.pkg.TypesInfo.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil
	}
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	form := &formModel{Name: name}
	shapeOK := true
	byProperty := map[string]*fieldModel{}
	propertyPos := map[string]token.Pos{}
	index := 0
	for _, af := range astStruct.Fields.List {
		names := af.Names
		if len(names) == 0 {
			names = []*ast.Ident{nil} // embedded
		}
		for _, ident := range names {
			if index >= st.NumFields() {
				break
			}
			v := st.Field(index)
			index++
			form.Shape = append(form.Shape, shapeField{Name: v.Name(), Type: v.Type(), Embedded: v.Embedded()})
			if !spellable(v.Type()) {
				shapeOK = false
			}
			pos := af.Pos()
			if ident != nil {
				pos = ident.Pos()
			}
			field, fieldOK := c.checkField(form, v, af, pos, st.Tag(index-1))
			if field == nil {
				continue
			}
			// A rejected field still claims its property name, so that a
			// clash is reported in the same run.
			if prev, dup := byProperty[field.Property]; dup {
				c.errorf(pos, "property name %q of field %s is also used by field %s at %s", field.Property, field.GoName, prev.GoName, c.relPos(propertyPos[field.Property]))
				continue
			}
			byProperty[field.Property] = field
			propertyPos[field.Property] = pos
			if fieldOK {
				form.Fields = append(form.Fields, field)
			}
		}
	}
	if !shapeOK {
		form.Shape = nil
	}
	form.Schema = buildSchema(form)
	return form
}

// relPos renders a position as base file name and line, for "also at" notes.
func (c *checker) relPos(p token.Pos) string {
	pos := c.fset.Position(p)
	return fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
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

// tag is the position of the tag as a whole.
func (p tagPlace) tag() token.Pos { return p.at(-1) }

// opt is the position of an option of spec, or of the tag.
func (p tagPlace) opt(at map[string]int, key string) token.Pos {
	if off, ok := at[key]; ok {
		return p.at(off)
	}
	return p.tag()
}

// checkField turns one struct field into a property, or reports why not.
// It returns nil for skipped and ignored fields and for those whose property
// name is unknown; ok is false when the field is rejected.
func (c *checker) checkField(form *formModel, v *types.Var, af *ast.Field, pos token.Pos, rawTag string) (field *fieldModel, ok bool) {
	t, problems := readTag(rawTag)
	place := c.placeTag(af, pos, t)
	spec, more := parseFormTag(t)
	problems = append(problems, more...)
	for _, p := range problems {
		c.errorf(place.at(p.off), "%s", p.msg)
	}
	if len(problems) > 0 {
		return nil, false
	}
	if spec.Skip {
		return nil, false
	}
	if v.Embedded() {
		c.errorf(pos, "embedded field %s: a form is flat; declare its fields directly, or skip it with elicit:\"-\"", v.Name())
		return nil, false
	}
	if !v.Exported() {
		if spec.Present {
			c.errorf(pos, "unexported field %s has an elicit tag: only exported fields become properties", v.Name())
		}
		return nil, false
	}
	property := spec.Name
	if property == "" {
		jsonName, skip := jsonFieldName(rawTag)
		switch {
		case skip && spec.Present:
			c.errorf(place.tag(), "field %s is skipped by its json tag: name the property in the elicit tag, or skip it with elicit:\"-\"", v.Name())
			return nil, false
		case skip:
			return nil, false
		case jsonName != "":
			property = jsonName
		default:
			property = v.Name()
		}
	}
	if strings.ContainsAny(property, " \t\r\n\"\\") {
		at := place.tag()
		if spec.Name != "" {
			at = place.at(t.nameOff)
		}
		c.errorf(at, "property name %q of field %s must not contain spaces, quotes or backslashes", property, v.Name())
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
	doc := c.fixDoc(af.Doc)
	title, _ := directiveArg(doc, directiveTitle)
	field.Title = cmp.Or(field.Title, title, nameTitle(v.Name()))
	field.Description = cmp.Or(docText(doc, v.Name()), docText(c.fixDoc(af.Comment), v.Name()))

	if !c.classify(field, spec, pos, place) {
		return field, false
	}
	ok = c.checkOptions(field, spec, place)
	if !spec.NotSecret {
		names := []string{field.GoName, field.Property, field.Title}
		if n := namedTypeName(field.Value); n != "" {
			names = append(names, n)
		}
		if w := secretWord(names...); w != "" {
			c.errorf(pos, "field %s looks secret (%q): form mode must not collect passwords, API keys, tokens or payment credentials; "+
				"collect it through a URL step instead (a tool step of type elicitrt.URLStep: the user enters it on your own page), or add notsecret to its elicit tag if it is not a secret", field.GoName, w)
			ok = false
		}
	}
	return field, ok
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

// firstParagraph is the comment's text up to its first blank line, on one
// line, without directives.
func firstParagraph(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	text := strings.TrimSpace(cg.Text())
	para, _, _ := strings.Cut(text, "\n\n")
	return strings.Join(strings.Fields(para), " ")
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

// nameGenerated decides the names of what p's generated files declare
// that is not API (schema variables, enum index functions, answer
// converters) and the names of their imports. Internal names are plain
// camelCase behind an "elicit" prefix (elicitPickSchema), which user code,
// test files included (they are not loaded), is unlikely to use; "_" is
// added while the package (outside elicitgen's files) or another generated
// declaration has one.
func (c *checker) nameGenerated(p *pkgModel) {
	scope := c.pkg.Types.Scope()
	taken := func(n string) bool {
		obj := scope.Lookup(n)
		if obj == nil {
			return false
		}
		file := c.fset.File(obj.Pos())
		return file == nil || !strings.HasSuffix(file.Name(), generatedSuffix)
	}
	used := map[string]bool{}
	alloc := func(base string, suffixes ...string) string {
		for {
			names := []string{base}
			for _, s := range suffixes {
				names = append(names, base+s)
			}
			if !slices.ContainsFunc(names, func(n string) bool { return used[n] || taken(n) }) {
				for _, n := range names {
					used[n] = true
				}
				return base
			}
			base += "_"
		}
	}
	for _, f := range p.Files {
		for _, form := range f.Forms {
			form.SchemaVar = alloc("elicit"+form.Name+"Schema", "Value")
			for _, fd := range form.Fields {
				if fd.Enum == nil || fd.Enum.Index != "" {
					continue
				}
				base := "elicit" + form.Name + fd.GoName + "Index"
				if fd.Enum.Named != nil {
					base = "elicit" + namedTypeName(fd.Enum.Named) + "Index"
				}
				fd.Enum.Index = alloc(base)
				form.Indexes = append(form.Indexes, fd)
			}
		}
		for _, t := range f.Tools {
			t.AnswersFunc = alloc("elicit" + t.Name + "Answers")
		}
		f.Imports = c.importNames(f)
	}
}

// importNames maps every package the file's generated code (and a stub of
// its tools) may refer to, to the name it goes by: its own, or with "_"
// added when a package-level identifier or another import has it.
func (c *checker) importNames(file *fileModel) map[string]string {
	paths := []string{runtimePath, mcpPath, jsonschemaPath, "context", "encoding/json", "fmt", "math", "net/url", "time"}
	own := map[string]string{runtimePath: runtimeName}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && p != c.pkg.Types && own[p.Path()] == "" && !slices.Contains(paths, p.Path()) {
				paths = append(paths, p.Path())
				own[p.Path()] = p.Name()
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		}
	}
	for _, form := range file.Forms {
		for _, sf := range form.Shape {
			walk(sf.Type)
		}
	}
	for _, t := range file.Tools {
		walk(t.Args)
	}
	names := map[string]string{}
	used := map[string]bool{}
	scope := c.pkg.Types.Scope()
	for _, path := range paths {
		name := own[path]
		if name == "" {
			name = path[strings.LastIndexByte(path, '/')+1:]
		}
		for used[name] || scope.Lookup(name) != nil {
			name += "_"
		}
		used[name] = true
		names[path] = name
	}
	return names
}
