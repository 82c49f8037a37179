package gen

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// A Diagnostic is one problem found while loading or checking, at a source
// position.
type Diagnostic struct {
	Pos     token.Position
	Message string
	// At is Pos in the file set Check ran on (token.NoPos for the go
	// command's errors): where package vet reports it.
	At token.Pos
	// Fix is the edit the message suggests, when it names the replacement
	// (a did-you-mean); its zero value is no fix.
	Fix Edit
}

// An Edit replaces the source from Pos to End with Text.
type Edit struct {
	Pos, End token.Pos
	Text     string
}

// Format renders d as "file:line:col: message", with the file relative to dir
// when it lies below it.
func (d Diagnostic) Format(dir string) string {
	file := d.Pos.Filename
	if dir != "" && file != "" {
		if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	switch {
	case file == "":
		return d.Message
	case d.Pos.Line == 0:
		return fmt.Sprintf("%s: %s", file, d.Message)
	case d.Pos.Column == 0:
		return fmt.Sprintf("%s:%d: %s", file, d.Pos.Line, d.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, d.Pos.Line, d.Pos.Column, d.Message)
}

// Diagnostics is a list of problems; as an error it prints all of them.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string { return ds.Format("") }

// Format renders every diagnostic on its own line, relative to dir.
func (ds Diagnostics) Format(dir string) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Format(dir))
		b.WriteByte('\n')
	}
	return b.String()
}

// sortDiagnostics orders by file, line, column, then message, and drops
// exact duplicates.
func sortDiagnostics(ds Diagnostics) Diagnostics {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(ds)
}
