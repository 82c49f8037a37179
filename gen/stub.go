package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
	"unicode"

	"github.com/elicitgen/elicitgen/templates"
)

// Stub renders a handler skeleton for the tool named tool (its MCP name)
// declared in the packages of cfg: every method of the generated handler
// interface, compiling as written. It returns the package directory and the
// gofmt-clean source; it never writes.
func Stub(cfg Config, tool string) (dir string, src []byte, diags Diagnostics, err error) {
	pkgs, fset, loadDiags, err := Load(cfg)
	if err != nil {
		return "", nil, nil, err
	}
	model, diags := Check(pkgs, fset)
	if loadDiags = withoutPending(loadDiags, model); len(loadDiags) > 0 {
		return "", nil, loadDiags, nil
	}
	if len(diags) > 0 {
		return "", nil, diags, nil
	}
	for _, p := range model.Packages {
		for _, f := range p.Files {
			for _, t := range f.Tools {
				if t.MCPName != tool {
					continue
				}
				data := templates.StubData{
					Package:  p.Name,
					Tool:     t.MCPName,
					Type:     lowerFirst(t.Name) + "Handler",
					Handler:  t.Name + "Handler",
					Args:     (&formEmitter{pkg: p}).typeExpr(t.Args).GoString(),
					Answers:  t.Name + "Answers",
					Step:     t.Name + "Step",
					Register: "Register" + t.Name,
				}
				for _, s := range t.Steps {
					data.Unavailable = data.Unavailable || s.Fallback == "handler"
					if s.MessageHandler {
						data.Messages = append(data.Messages, s.GoName)
					}
					if s.AskHandler {
						data.Asks = append(data.Asks, s.GoName)
					}
				}
				var buf bytes.Buffer
				if err := templates.Stub.Execute(&buf, data); err != nil {
					return "", nil, nil, err
				}
				out, err := format.Source(buf.Bytes())
				if err != nil {
					return "", nil, nil, fmt.Errorf("stub for %s: %w", tool, err)
				}
				return p.Dir, out, nil, nil
			}
		}
	}
	return "", nil, nil, fmt.Errorf("no tool %q declared (//elicit:tool %s) in %s", tool, tool, strings.Join(cfg.Patterns, " "))
}

func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
