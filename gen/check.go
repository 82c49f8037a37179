package gen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// Directives, in doc comments.
const (
	directiveForm  = "//elicit:form"
	directiveTitle = "//elicit:title"
)

// Check finds the forms of pkgs and applies every rule. It returns the model
// and every diagnostic at once, sorted; the model is only to be used when
// there are none.
func Check(pkgs []*packages.Package, fset *token.FileSet) (*Model, Diagnostics) {
	c := &checker{fset: fset}
	model := &Model{}
	sorted := slices.Clone(pkgs)
	slices.SortFunc(sorted, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	for _, pkg := range sorted {
		if p := c.checkPackage(pkg); p != nil {
			model.Packages = append(model.Packages, p)
		}
	}
	return model, sortDiagnostics(c.diags)
}

type checker struct {
	fset  *token.FileSet
	pkg   *packages.Package
	diags Diagnostics
	// enums are the enum types of the package being checked, shared by the
	// checkers of its forms.
	enums *enumCache
	// file is the index in pkg.Syntax of the file being checked.
	file int
	// pendingTools are the tool declarations of the package being checked,
	// resolved once all its forms are known.
	pendingTools []pendingTool
}

func (c *checker) errorf(pos token.Pos, format string, args ...any) {
	c.diags = append(c.diags, c.diagnostic(pos, format, args...))
}

func (c *checker) diagnostic(pos token.Pos, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: c.fset.Position(pos), Message: fmt.Sprintf(format, args...)}
}

func (c *checker) checkPackage(pkg *packages.Package) *Package {
	if pkg.Types == nil || pkg.TypesInfo == nil {
		return nil
	}
	c.pkg = pkg
	c.enums = &enumCache{entries: map[types.Type]*enumEntry{}}
	p := &Package{Path: pkg.PkgPath, Name: pkg.Name, types: pkg.Types}
	// The type declarations that may be forms, checked concurrently below.
	type candidate struct {
		file  *File
		index int // of the file in pkg.Syntax
		ts    *ast.TypeSpec
		doc   *ast.CommentGroup
		form  *Form
		diags Diagnostics
	}
	var candidates []*candidate
	for fi, f := range pkg.Syntax {
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
		file := &File{Source: name, Output: strings.TrimSuffix(name, ".go") + generatedSuffix}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if len(gd.Specs) == 1 && !hasDirective(doc, directiveForm) && gd.Doc != nil {
					doc = gd.Doc // type (...) with one spec: its doc may carry the directive
				}
				if hasDirective(doc, directiveTool) {
					c.pendingTools = append(c.pendingTools, pendingTool{file: file, spec: ts, doc: doc})
					continue
				}
				candidates = append(candidates, &candidate{file: file, index: fi, ts: ts, doc: doc})
			}
		}
		p.Files = append(p.Files, file)
	}
	// Each candidate is checked by its own checker, which shares only the
	// enum cache; forms and diagnostics are gathered in source order.
	next := make(chan *candidate)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(candidates)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for cd := range next {
				w := &checker{fset: c.fset, pkg: pkg, enums: c.enums, file: cd.index}
				cd.form = w.checkTypeSpec(cd.ts, cd.doc)
				cd.diags = w.diags
			}
		}()
	}
	for _, cd := range candidates {
		next <- cd
	}
	close(next)
	wg.Wait()
	for _, cd := range candidates {
		c.diags = append(c.diags, cd.diags...)
		if cd.form != nil {
			cd.file.Forms = append(cd.file.Forms, cd.form)
		}
	}
	c.diags = append(c.diags, c.enums.diagnostics(c.fset)...)
	c.resolveTools(p)
	slices.SortFunc(p.Files, func(a, b *File) int { return strings.Compare(a.Source, b.Source) })
	if len(p.Files) == 0 && len(p.Generated) == 0 {
		return nil
	}
	return p
}

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

func (c *checker) checkTypeSpec(ts *ast.TypeSpec, doc *ast.CommentGroup) *Form {
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
	form := &Form{Name: name, Pos: c.fset.Position(ts.Name.Pos())}
	shapeOK := true
	byProperty := map[string]*Field{}
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
			form.Shape = append(form.Shape, ShapeField{Name: v.Name(), Type: v.Type()})
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

// checkField turns one struct field into a property, or reports why not.
// It returns nil for skipped and ignored fields and for those whose property
// name is unknown; ok is false when the field is rejected.
func (c *checker) checkField(form *Form, v *types.Var, af *ast.Field, pos token.Pos, rawTag string) (field *Field, ok bool) {
	tagPos := pos
	if af.Tag != nil {
		tagPos = af.Tag.Pos()
	}
	spec, problems := parseStructTag(rawTag)
	for _, p := range problems {
		c.errorf(tagPos, "%s", p)
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
			c.errorf(tagPos, "field %s is skipped by its json tag: name the property in the elicit tag, or skip it with elicit:\"-\"", v.Name())
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
		c.errorf(tagPos, "property name %q of field %s must not contain spaces, quotes or backslashes", property, v.Name())
		return nil, false
	}
	field = &Field{
		GoName:   v.Name(),
		Property: property,
		Type:     v.Type(),
		Value:    v.Type(),
		Required: spec.Required,
		Title:    spec.Title,
		Format:   spec.Format,
	}
	doc := af.Doc
	if title, ok := directiveArg(doc, directiveTitle); ok && field.Title == "" {
		field.Title = title
	}
	field.Description = firstParagraph(doc)
	if field.Description == "" {
		field.Description = firstParagraph(af.Comment)
	}

	if !c.classify(field, spec, pos) {
		return field, false
	}
	ok = c.checkOptions(field, spec, pos, tagPos)
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
func (c *checker) classify(f *Field, spec tagSpec, pos token.Pos) bool {
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
	if isTime(t) {
		f.Kind = KindTime
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return c.classifyBasic(f, t, u, spec, pos)
	case *types.Slice:
		return c.classifySlice(f, u, spec, pos)
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

func (c *checker) classifyBasic(f *Field, t types.Type, b *types.Basic, spec tagSpec, pos token.Pos) bool {
	info := b.Info()
	switch {
	case b.Kind() == types.String:
		if _, named := t.(*types.Named); named {
			if len(spec.Enum) > 0 {
				c.errorf(pos, "field %s: enum= is for string; the constants of %s define its values", f.GoName, namedTypeName(t))
				return false
			}
			enum := c.enumOf(t, pos, f.GoName)
			if enum == nil {
				return false
			}
			f.Kind = KindEnum
			f.Enum = enum
			return true
		}
		if len(spec.Enum) > 0 {
			f.Kind = KindEnum
			f.Enum = &Enum{}
			for _, v := range spec.Enum {
				f.Enum.Values = append(f.Enum.Values, EnumValue{Value: v})
			}
			return true
		}
		f.Kind = KindString
	case b.Kind() == types.Bool:
		f.Kind = KindBool
	case b.Kind() == types.Uintptr:
		c.errorf(pos, "field %s is a uintptr: use an integer type", f.GoName)
		return false
	case info&types.IsInteger != 0:
		f.Kind = KindInteger
		f.HasMin, f.HasMax = true, true
		f.MinInt, f.MaxInt = intRange(b.Kind())
	case b.Kind() == types.Float32 || b.Kind() == types.Float64:
		f.Kind = KindNumber
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

func (c *checker) classifySlice(f *Field, s *types.Slice, spec tagSpec, pos token.Pos) bool {
	elem := types.Unalias(s.Elem())
	b, ok := elem.Underlying().(*types.Basic)
	if !ok || b.Kind() != types.String {
		c.errorf(pos, "field %s is a slice of %s: the only slices a form takes are multi-selects, a slice of an enum type or []string with enum=a|b|c",
			f.GoName, types.TypeString(elem, types.RelativeTo(c.pkg.Types)))
		return false
	}
	f.Kind = KindMulti
	if _, named := elem.(*types.Named); named {
		if len(spec.Enum) > 0 {
			c.errorf(pos, "field %s: enum= is for []string; the constants of %s define its values", f.GoName, namedTypeName(elem))
			return false
		}
		f.Enum = c.enumOf(elem, pos, f.GoName)
		return f.Enum != nil
	}
	if len(spec.Enum) == 0 {
		c.errorf(pos, "field %s is a []string without enum=: a multi-select needs its values, as enum=a|b|c or a slice of an enum type", f.GoName)
		return false
	}
	f.Enum = &Enum{}
	for _, v := range spec.Enum {
		f.Enum.Values = append(f.Enum.Values, EnumValue{Value: v})
	}
	return true
}

// enumCache holds the enum types of one package: each is read once, by
// whichever form's checker gets to it first, and its problems are reported
// once, at the first field (in source order) that uses it.
type enumCache struct {
	mu      sync.Mutex
	entries map[types.Type]*enumEntry
}

type enumEntry struct {
	once  sync.Once
	enum  *Enum // nil when the type is no good enum
	diags Diagnostics
	// fieldErr, when set, is the problem reported at the first field that
	// uses the type, made from that field's position and name.
	fieldErr func(pos token.Pos, field string) Diagnostic

	mu       sync.Mutex
	first    bool
	firstAt  [2]int // file index, offset
	firstPos token.Pos
	firstFld string
}

// use records that field, at pos in file index file, uses the entry.
func (e *enumEntry) use(fset *token.FileSet, file int, pos token.Pos, field string) {
	at := [2]int{file, fset.Position(pos).Offset}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.first || at[0] < e.firstAt[0] || at[0] == e.firstAt[0] && at[1] < e.firstAt[1] {
		e.first, e.firstAt, e.firstPos, e.firstFld = true, at, pos, field
	}
}

// diagnostics returns the problems of every enum type used.
func (ec *enumCache) diagnostics(fset *token.FileSet) Diagnostics {
	var ds Diagnostics
	for _, e := range ec.entries {
		ds = append(ds, e.diags...)
		if e.fieldErr != nil && e.first {
			ds = append(ds, e.fieldErr(e.firstPos, e.firstFld))
		}
	}
	return ds
}

// enumOf collects the constants of the named string type t, in source order,
// with their //elicit:title directives. Problems are reported once per type.
func (c *checker) enumOf(t types.Type, pos token.Pos, field string) *Enum {
	c.enums.mu.Lock()
	e := c.enums.entries[t]
	if e == nil {
		e = &enumEntry{}
		c.enums.entries[t] = e
	}
	c.enums.mu.Unlock()
	e.use(c.fset, c.file, pos, field)
	e.once.Do(func() {
		r := &checker{fset: c.fset, pkg: c.pkg}
		e.enum, e.fieldErr = r.readEnum(t)
		e.diags = r.diags
	})
	return e.enum
}

// readEnum reads the enum type t. Problems of the type itself go to c's
// diagnostics; one to report at the first field using it is returned.
func (c *checker) readEnum(t types.Type) (*Enum, func(token.Pos, string) Diagnostic) {
	named := types.Unalias(t).(*types.Named)
	name := named.Obj().Name()
	if named.Obj().Pkg() != c.pkg.Types {
		return nil, func(pos token.Pos, field string) Diagnostic {
			return c.diagnostic(pos, "field %s: enum type %s is declared in another package; elicitgen reads an enum's constants and titles from source, so declare it in package %s",
				field, types.TypeString(t, nil), c.pkg.Name)
		}
	}
	enum := &Enum{Named: t}
	var titled, untitled []token.Pos
	seen := map[string]token.Pos{}
	bad := false
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
					if !ok || !types.Identical(obj.Type(), t) || obj.Val().Kind() != constant.String {
						continue
					}
					value := constant.StringVal(obj.Val())
					if prev, dup := seen[value]; dup {
						c.errorf(id.Pos(), "enum type %s: constant %s repeats the value %q of %s", name, id.Name, value, c.relPos(prev))
						bad = true
						continue
					}
					seen[value] = id.Pos()
					title, has := directiveArg(vs.Doc, directiveTitle)
					if !has {
						title, has = directiveArg(vs.Comment, directiveTitle)
					}
					if !has && len(gd.Specs) == 1 {
						title, has = directiveArg(gd.Doc, directiveTitle)
					}
					if has && title == "" {
						c.errorf(id.Pos(), "enum type %s: constant %s has an empty //elicit:title", name, id.Name)
						bad = true
					}
					if has {
						titled = append(titled, id.Pos())
					} else {
						untitled = append(untitled, id.Pos())
					}
					enum.Values = append(enum.Values, EnumValue{Value: value, Title: title})
				}
			}
		}
	}
	switch {
	case len(enum.Values) == 0:
		return nil, func(pos token.Pos, field string) Diagnostic {
			return c.diagnostic(pos, "field %s: enum type %s has no constants: declare its values as constants of type %s in package %s", field, name, name, c.pkg.Name)
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
