package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/elicitgen/elicitgen/gen"
)

func newStubCmd(stdout, stderr io.Writer) *cobra.Command {
	var output string
	var test bool
	cmd := &cobra.Command{
		Use:   "stub NAME [package]",
		Short: "Write a handler skeleton for a tool, prompt or resource, or a tool's test; never overwrites a file",
		Long: `stub writes a handler skeleton for the declaration named NAME (a tool's
or prompt's name, or a resource's URI, as its directive gives it) in package
(default "."): a type with every method of the generated handler interface,
compiling as written. The file defaults to NAME_handler.go in the package
directory (a resource URI's punctuation becomes "_"); an existing file is
never overwritten. For an unknown NAME it lists the declarations there are.
When no file of the package has a //go:generate line that runs elicitgen,
stub adds "//go:generate go tool elicitgen" under the package clause of
the file that declares NAME, and says so.

With --test, stub writes the tool's test instead (NAME_test.go): one
conversation per path on both protocol eras, with runtime/elicittest:
every step accepted; each step declined and cancelled; a confirmation
answered no; URL steps signed in, denied and through their link; a task
tool as a task; a client that cannot ask (its fallbacks, a preview and
its token); the replay of a once step. It fails until newXHandler (in the
test) builds the handler and the handler answers each path; where it
stops, docs/guide/testing.md says what to write by hand.`,
		Args: stubArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			cfg := gen.Config{Dir: wd}
			if len(args) == 2 {
				cfg.Patterns = []string{args[1]}
			}
			if test {
				return writeStubTest(wd, cfg, args[0], output, stdout, stderr)
			}
			dir, source, src, diags, err := gen.Stub(cfg, args[0])
			if err != nil {
				return &exitError{exitDiag, err}
			}
			if len(diags) > 0 {
				fmt.Fprint(stderr, diags.Format(wd))
				return &exitError{code: exitDiag}
			}
			path := output
			if path == "" {
				path = filepath.Join(dir, stubFileName(args[0]))
			}
			if err := writeNew(wd, path, src, stdout); err != nil {
				return err
			}
			return addGoGenerate(wd, source, stdout)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "the file to write (default NAME_handler.go, or NAME_test.go with --test, in the package directory)")
	cmd.Flags().BoolVar(&test, "test", false, "write the tool's test (NAME_test.go) instead of its handler")
	return cmd
}

// writeStubTest writes the test of tool to output (default NAME_test.go in
// the package directory).
func writeStubTest(wd string, cfg gen.Config, tool, output string, stdout, stderr io.Writer) error {
	dir, src, diags, err := gen.StubTest(cfg, tool)
	if err != nil {
		return &exitError{exitDiag, err}
	}
	if len(diags) > 0 {
		fmt.Fprint(stderr, diags.Format(wd))
		return &exitError{code: exitDiag}
	}
	if output == "" {
		output = filepath.Join(dir, strings.TrimSuffix(stubFileName(tool), "_handler.go")+"_test.go")
	}
	return writeNew(wd, output, src, stdout)
}

// writeNew writes src to path, a file that must not exist, and says so.
func writeNew(wd, path string, src []byte, stdout io.Writer) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return &exitError{exitDiag, fmt.Errorf("%s exists; stub never overwrites a file (write another with -o FILE)", relTo(wd, path))}
	}
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return &exitError{exitUsage, err}
	}
	if err := f.Close(); err != nil {
		return &exitError{exitUsage, err}
	}
	fmt.Fprintln(stdout, "wrote", relTo(wd, path))
	return nil
}

// stubFileName is the default file of a stub: NAME_handler.go, with every
// character of NAME that is not a letter, a digit, '_' or '-' (a resource
// URI's "://", braces, slashes) as '_', runs of them as one.
func stubFileName(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		if r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	base := strings.Trim(b.String(), "_")
	if base == "" {
		base = "stub"
	}
	return base + "_handler.go"
}

// addGoGenerate adds the go:generate line to source when its package has
// none, and says so.
func addGoGenerate(wd, source string, stdout io.Writer) error {
	added, err := gen.AddGoGenerate(source)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if added {
		fmt.Fprintf(stdout, "added %s to %s: no file of the package had a //go:generate line running elicitgen, so go generate did nothing there\n", gen.GoGenerateLine, relTo(wd, source))
	}
	return nil
}

// stubArgs accepts a name and an optional package, and says so otherwise.
func stubArgs(_ *cobra.Command, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("stub takes the name of a tool, prompt or resource, and optionally a package: elicitgen stub NAME [PACKAGE]")
	}
	return nil
}
