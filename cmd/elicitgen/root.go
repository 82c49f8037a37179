package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/elicitgen/elicitgen/gen"
	"github.com/elicitgen/elicitgen/internal/contract"
)

// Exit statuses.
const (
	exitOK    = 0
	exitDiag  = 1
	exitUsage = 2
)

// exitError carries an exit status out of a cobra RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

// run is main without the process: arguments in, status out.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "elicitgen:", ee.err)
		}
		return ee.code
	}
	// Flag and argument errors come from cobra.
	fmt.Fprintln(stderr, "elicitgen:", err)
	fmt.Fprintln(stderr, "Run 'elicitgen --help' for usage.")
	return exitUsage
}

// usage is the long help of the command.
const usage = `elicitgen reads the Go packages given (default ".") and, next to each
source file x.go that declares forms, tools, prompts or resources, writes
x_elicit.go.

Forms: a struct type with fields tagged elicit:"NAME,OPTION,..." (or whose doc
carries //elicit:form). Each exported field is one property of a flat form;
its doc comment is the property's description, //elicit:title or title=
gives its title (default: the Go name's words, ReleaseNotes → "Release
notes"). Directives are written with no space: //elicit:tool NAME.
Generated: ElicitSchema (the requestedSchema, precomputed), ElicitParams and
DecodeElicit, a strict typed decoder. Secret-looking fields are refused.

Tools: a struct type marked //elicit:tool NAME (and optionally
//elicit:annotations readonly,destructive,idempotent,openworld). Its Args
field holds the model's arguments; every other field is a step, in order: a
form, or an elicitrt.URLStep for a sign-in, tagged with options such as
message=, ask=handler, prefill, together, once and fallback=. Its doc
comment, without the Go name it starts with, is the tool's description.
Generated: the step table, the step and
answers types, the handler interface and RegisterNAME, which hands the table
to the runtime's interpreter. //elicit:task optional|required makes the tool
run as a task of the tasks extension: its handler has Run instead of
Complete, and its steps tagged during are asked while the task runs, through
the typed Ask methods of the generated NAMETask.

Prompts and resources: a struct type marked //elicit:prompt NAME (served by
prompts/get; Args holds its string arguments) or //elicit:resource URI
[MIME-TYPE] (served by resources/read; a URI with a {variable} is a
template), with steps as a tool's. Generated: the same, with the kind's
request and result types (docs/guide/declarations.md).

On success elicitgen prints one line (files written, unchanged, removed)
unless -q. Problems are reported all at once as file:line:col: message, and
then nothing is written. A generated file is rewritten only when its bytes
change, and removed when its source no longer declares anything; a
*_elicit.go file that elicitgen did not write is never written over or
removed.

Exit status:
  0  success (with --check: every generated file is current)
  1  diagnostics, or --check found a missing, stale or leftover file
  2  a usage error, or another failure (the go command, the file system)

Examples:
  //go:generate go tool elicitgen     in a package; then: go generate ./...
  elicitgen ./...                     generate for every package of the module
  elicitgen --check ./...             in CI: fail, with a diff, when a file is stale
  elicitgen stub deploy               write deploy_handler.go for the tool deploy
  elicitgen stub --test deploy        write deploy_test.go: a test of each path of deploy
  elicitgen vet ./...                 report problems and stale files, as go vet
  elicitgen docs --format html -o ref.html ./...   what every tool asks, as hosts show it
  elicitgen diff base.json elicit.contract.json    exit 1 on a breaking change
  go vet -vettool=$(go tool -n elicitgen) ./...   the same, run by go vet

The grammar: docs/reference/grammar.md; the generated API: docs/reference/generated-api.md.`

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		check   bool
		quiet   bool
		tags    string
		version bool
	)
	cmd := &cobra.Command{
		Use:           "elicitgen [flags] [packages]",
		Short:         "Generate elicitation schemas, decoders and tool step tables for Go MCP servers",
		Long:          usage,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Packages are arguments; "stub" names the subcommand (write ./stub
		// for a package of that name).
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if version {
				fmt.Fprintln(stdout, "elicitgen", moduleVersion())
				return nil
			}
			cfg := gen.Config{Patterns: args}
			if tags != "" {
				cfg.BuildFlags = []string{"-tags=" + tags}
			}
			wd, err := os.Getwd()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			cfg.Dir = wd
			if !check {
				return generate(cfg, quiet, stdout, stderr)
			}
			return checkFiles(cfg, stdout, stderr)
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.AddCommand(newStubCmd(stdout, stderr), newVetCmd(stdout, stderr), newDocsCmd(stdout, stderr), newDiffCmd(stdout))
	// No shell-completion command, and no help command in the listing:
	// --help says it all.
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetHelpCommand(&cobra.Command{Hidden: true})
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when generated files are missing, stale or left over")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing on success")
	cmd.Flags().StringVar(&tags, "tags", "", "comma-separated build tags")
	cmd.Flags().BoolVar(&version, "version", false, "print the version and exit")
	cmd.Flags().SortFlags = false
	return cmd
}

// checkFiles is --check: it writes nothing and fails, verdict first and
// then the diffs (--- on disk, +++ what elicitgen writes), when a generated
// file is missing, stale or left over.
func checkFiles(cfg gen.Config, stdout, stderr io.Writer) error {
	res, err := gen.Generate(cfg, true)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if len(res.Diagnostics) > 0 {
		fmt.Fprint(stderr, res.Diagnostics.Format(cfg.Dir))
		return &exitError{code: exitDiag}
	}
	if len(res.Changes) > 0 {
		names := make([]string, len(res.Changes))
		for i, c := range res.Changes {
			names[i] = c.Action + " " + relTo(cfg.Dir, c.Path)
		}
		// The verdict first, then the diffs (--- on disk, +++ what
		// elicitgen writes).
		fmt.Fprintf(stderr, "elicitgen: generated files are not up to date (run elicitgen): %s\n", strings.Join(names, ", "))
		for _, c := range res.Changes {
			fmt.Fprint(stdout, c.Diff)
		}
		return &exitError{code: exitDiag}
	}
	return nil
}

// generate runs elicitgen and writes its files: those whose bytes changed,
// never the others; stale ones are removed. Unless quiet, it prints one
// summary line.
func generate(cfg gen.Config, quiet bool, stdout, stderr io.Writer) error {
	res, err := gen.Generate(cfg, false)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if len(res.Diagnostics) > 0 {
		fmt.Fprint(stderr, res.Diagnostics.Format(cfg.Dir))
		return &exitError{code: exitDiag}
	}
	if !quiet {
		fmt.Fprintln(stdout, summary(res.Changes, res.Unchanged, cfg.Patterns))
	}
	return nil
}

// summary is the line a successful run prints: "elicitgen: 2 files
// written, 5 unchanged, 1 removed", with only the counts that are not
// zero, and "no files" with what it looked for when there is nothing at
// all.
func summary(changes []gen.Change, unchanged int, patterns []string) string {
	written, removed := 0, 0
	for _, c := range changes {
		if c.Action == "remove" {
			removed++
		} else {
			written++
		}
	}
	var parts []string
	if written > 0 {
		parts = append(parts, plural(written, "file")+" written")
	}
	if unchanged > 0 {
		if written > 0 {
			parts = append(parts, fmt.Sprint(unchanged, " unchanged"))
		} else {
			parts = append(parts, plural(unchanged, "file")+" unchanged")
		}
	}
	if removed > 0 {
		parts = append(parts, plural(removed, "file")+" removed")
	}
	if len(parts) == 0 {
		return "elicitgen: no forms or tools, no files " + lookedFor(patterns)
	}
	return "elicitgen: " + strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprint(n, " ", noun, "s")
}

// moduleVersion is the version of the elicitgen module this binary was
// built from, and the generated-code version it writes.
func moduleVersion() string {
	v := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == "github.com/elicitgen/elicitgen" && info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, d := range info.Deps {
			if d.Path == "github.com/elicitgen/elicitgen" {
				v = d.Version
			}
		}
	}
	return v + " (generated code version " + fmt.Sprint(genVersion) + ")"
}

func relTo(dir, p string) string {
	if strings.HasPrefix(p, dir+string(os.PathSeparator)) {
		return p[len(dir)+1:]
	}
	return p
}

var genVersion = contract.GenVersion

// lookedFor says what a run that found nothing looked for, and where.
func lookedFor(patterns []string) string {
	where := "."
	if len(patterns) > 0 {
		where = strings.Join(patterns, " ")
	}
	return "(looked in " + where + ` for struct types tagged elicit:"..." or marked //elicit:form, //elicit:tool, //elicit:prompt or //elicit:resource)`
}
