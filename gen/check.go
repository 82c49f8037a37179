package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// checkPackages is Check: it finds the forms and declarations of pkgs and
// applies every rule. It returns the model and every diagnostic at once,
// sorted; the model is only to be used when there are none.
func checkPackages(pkgs []*packages.Package, fset *token.FileSet) (*model, Diagnostics) {
	c := &checker{fset: fset}
	m := &model{}
	sorted := slices.Clone(pkgs)
	slices.SortFunc(sorted, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	for _, pkg := range sorted {
		if pkg.Types == nil || pkg.TypesInfo == nil {
			continue
		}
		if p := c.checkPackage(&unit{Syntax: pkg.Syntax, Types: pkg.Types, TypesInfo: pkg.TypesInfo}); p != nil {
			m.Packages = append(m.Packages, p)
		}
	}
	return m, sortDiagnostics(c.diags)
}

// unit is one type-checked package as Check reads it: what go/packages
// gives Load, and what a go/analysis pass gives the analyzer (package vet).
type unit struct {
	Syntax    []*ast.File
	Types     *types.Package
	TypesInfo *types.Info
}

type checker struct {
	fset  *token.FileSet
	pkg   *unit
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

func (c *checker) errorf(pos token.Pos, format string, args ...any) {
	c.fixf(pos, Edit{}, format, args...)
}

// fixf is errorf for a problem whose message names its fix.
func (c *checker) fixf(pos token.Pos, fix Edit, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Pos: c.fset.Position(pos), At: pos, Fix: fix, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) checkPackage(pkg *unit) *pkgModel {
	c.pkg = pkg
	c.enums, c.fixed = map[types.Type]*enumEntry{}, map[*ast.CommentGroup]*ast.CommentGroup{}
	c.tools = nil
	p := &pkgModel{Path: pkg.Types.Path(), Name: pkg.Types.Name(), types: pkg.Types}
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
		if x := fileConstraint(name, f); x != nil {
			file.Build = x.String()
		}
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
	c.checkOutputsFree(p)
	slices.SortFunc(p.Files, func(a, b *fileModel) int { return strings.Compare(a.Source, b.Source) })
	c.nameGenerated(p)
	if len(p.Files) == 0 && len(p.Generated) == 0 {
		return nil
	}
	return p
}

// relPos renders a position as base file name and line, for "also at" notes.
func (c *checker) relPos(p token.Pos) string {
	pos := c.fset.Position(p)
	return fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
}

// structField is one field of a struct type, with its syntax.
type structField struct {
	v   *types.Var
	af  *ast.Field
	pos token.Pos // of its name, or of the field when embedded
	tag string
}

// structFields lists the fields of a struct type as declared (astStruct)
// and typed (st), in order.
func structFields(astStruct *ast.StructType, st *types.Struct) []structField {
	var out []structField
	for _, af := range astStruct.Fields.List {
		names := af.Names
		if len(names) == 0 {
			names = []*ast.Ident{nil} // embedded
		}
		for _, ident := range names {
			if len(out) >= st.NumFields() {
				return out
			}
			sf := structField{v: st.Field(len(out)), af: af, pos: af.Pos(), tag: st.Tag(len(out))}
			if ident != nil {
				sf.pos = ident.Pos()
			}
			out = append(out, sf)
		}
	}
	return out
}
