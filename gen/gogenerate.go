package gen

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// GoGenerateLine is the line that makes go generate run elicitgen in a
// package.
const GoGenerateLine = "//go:generate go tool elicitgen"

// AddGoGenerate adds GoGenerateLine under the package clause of the Go
// file source when no .go file of its directory has a //go:generate line
// that runs elicitgen (without one, go generate does nothing and the
// build fails on the names elicitgen would generate). It reports whether
// it added the line.
func AddGoGenerate(source string) (bool, error) {
	names, err := filepath.Glob(filepath.Join(filepath.Dir(source), "*.go"))
	if err != nil {
		return false, err
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return false, err
		}
		if runsElicitgen(b) {
			return false, nil
		}
	}
	src, err := os.ReadFile(source)
	if err != nil {
		return false, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), source, src, parser.PackageClauseOnly)
	if err != nil {
		return false, err
	}
	at, text := goGenerateInsert(f)
	end := int(at) - 1 // offset of the package name's end (base 1)
	var out bytes.Buffer
	out.Write(src[:end])
	out.WriteString(text)
	out.Write(src[end:])
	info, err := os.Stat(source)
	if err != nil {
		return false, err
	}
	return true, os.WriteFile(source, out.Bytes(), info.Mode().Perm())
}

// goGenerateInsert is where AddGoGenerate adds GoGenerateLine to f, and
// the text it inserts there: under the package clause.
func goGenerateInsert(f *ast.File) (token.Pos, string) {
	return f.Name.End(), "\n\n" + GoGenerateLine
}

// runsElicitgen reports whether src has a //go:generate line naming
// elicitgen.
func runsElicitgen(src []byte) bool {
	for line := range strings.Lines(string(src)) {
		if strings.HasPrefix(line, "//go:generate ") && strings.Contains(line, "elicitgen") {
			return true
		}
	}
	return false
}
