package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/elicitgen/elicitgen/internal/contract"
)

// output is what Emit produces: the bytes of every generated file keyed by
// absolute path, and the generated files of ours that no source produces
// any more.
type output struct {
	Files map[string][]byte
	Stale []string
}

// errInternal is in every error Emit returns: Check made every decision
// and refused every bad input, so a model that cannot be printed is a bug
// of elicitgen, never the user's.
var errInternal = errors.New("elicitgen internal error (please report it)")

// emit prints the model. It never touches the disk, and its errors are
// all errInternal.
func emit(m *model) (*output, error) {
	out := &output{Files: map[string][]byte{}}
	for _, pkg := range m.Packages {
		for _, file := range pkg.Files {
			src, err := emitFile(pkg, file)
			if err != nil {
				return nil, fmt.Errorf("%w: rendering %s: %v", errInternal, file.Output, err)
			}
			out.Files[file.Output] = src
		}
		for _, g := range pkg.Generated {
			if _, ok := out.Files[g]; !ok {
				out.Stale = append(out.Stale, g)
			}
		}
	}
	return out, nil
}

// emitFile prints one generated file: the version lock, each form, each
// tool.
func emitFile(pkg *pkgModel, file *fileModel) ([]byte, error) {
	f := newFile(pkg, file.Imports)
	f.HeaderComment("// " + header)
	f.HeaderComment("// source: " + filepath.Base(file.Source))
	if file.Build != "" {
		f.HeaderComment("//go:build " + file.Build)
	}
	v := jen.Lit(contract.GenVersion)
	f.Comment("The build fails on the next lines when this file and the elicitgen runtime")
	f.Comment("come from different versions of elicitgen: run the elicitgen of the same")
	f.Comment("module version as the runtime, then go generate.")
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(implPath, "EnforceVersion").Call(v.Clone().Op("-").Qual(implPath, "MinVersion")),
		jen.Id("_").Op("=").Qual(implPath, "EnforceVersion").Call(impl("MaxVersion").Op("-").Add(v)),
	)
	for _, form := range file.Forms {
		e := &formEmitter{pkg: pkg, form: form, taken: file.Imports}
		e.emit(f)
	}
	for _, tool := range file.Tools {
		emitTool(f, pkg, tool)
	}
	return render(f)
}

// newFile starts a jennifer file of package pkg whose imports go by the
// names of imports (import path → name; Check chose them, aliasing those
// that a package-level identifier takes).
func newFile(pkg *pkgModel, imports map[string]string) *jen.File {
	f := jen.NewFilePathName(pkg.Path, pkg.Name)
	for path, name := range imports {
		if name == lastElem(path) && path != runtimePath {
			f.ImportName(path, name)
		} else {
			f.ImportAlias(path, name)
		}
	}
	return f
}

func lastElem(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// render prints f: jennifer writes the source and names the imports, and
// go/format formats it, once. jennifer writes the imports as one block
// sorted by path; the one change made to its text is goimports' grouping
// of that block (standard library first, a blank line, the rest), before
// formatting. goimports, too, groups by editing printed text.
func render(f *jen.File) ([]byte, error) {
	f.NoFormat = true
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	out, err := format.Source(groupImports(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, buf.Bytes())
	}
	return out, nil
}

// groupImports reorders the lines of jennifer's import block: the standard
// library's (no dot in the path's first element) first, then a blank line
// and the others, each group in jennifer's order.
func groupImports(src []byte) []byte {
	open := []byte("\nimport (\n")
	start := bytes.Index(src, open)
	if start < 0 {
		return src
	}
	start += len(open)
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start + 1
	var std, other [][]byte
	for line := range bytes.Lines(src[start:end]) {
		q := bytes.IndexByte(line, '"')
		if q < 0 {
			return src // not jennifer's one-spec-per-line block
		}
		first, _, _ := bytes.Cut(line[q+1:], []byte("/"))
		if bytes.Contains(first, []byte(".")) {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	block := slices.Concat(slices.Concat(std...), []byte("\n"), slices.Concat(other...))
	return slices.Concat(src[:start], block, src[end:])
}

// typeExpr spells a Go type of package pkgPath for generated code: the one
// speller of types, qualifying foreign names.
func typeExpr(pkgPath string, t types.Type) *jen.Statement {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || obj.Pkg().Path() == pkgPath {
			return jen.Id(obj.Name())
		}
		return jen.Qual(obj.Pkg().Path(), obj.Name())
	case *types.Pointer:
		return jen.Op("*").Add(typeExpr(pkgPath, t.Elem()))
	case *types.Slice:
		return jen.Index().Add(typeExpr(pkgPath, t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(typeExpr(pkgPath, t.Elem()))
	case *types.Map:
		return jen.Map(typeExpr(pkgPath, t.Key())).Add(typeExpr(pkgPath, t.Elem()))
	case *types.Interface:
		return jen.Any()
	}
	return jen.Id(types.TypeString(t, nil))
}

func rt(name string) *jen.Statement { return jen.Qual(runtimePath, name) }

// impl refers to name of the package for generated code only.
func impl(name string) *jen.Statement { return jen.Qual(implPath, name) }

// joinAnd joins words as "a, b and c".
func joinAnd(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	out := ""
	for i, w := range words[:len(words)-1] {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out + " and " + words[len(words)-1]
}

func lits(ss []string) []jen.Code {
	out := make([]jen.Code, len(ss))
	for i, s := range ss {
		out[i] = jen.Lit(s)
	}
	return out
}
