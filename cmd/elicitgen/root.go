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
	elicitrt "github.com/elicitgen/elicitgen/runtime"
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

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		check   bool
		tags    string
		version bool
	)
	cmd := &cobra.Command{
		Use:   "elicitgen [flags] [packages]",
		Short: "Generate elicitation schemas, decoders and MRTR machines for Go MCP servers",
		Long: `elicitgen reads Go structs tagged elicit:"..." and writes, next to each
source file x.go, a file x_elicit.go with precomputed schemas and strict typed
decoders. Packages default to ".". Problems are reported all at once as
file:line:col: message, and then nothing is written.`,
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
			res, err := gen.Generate(cfg, check)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			if len(res.Diagnostics) > 0 {
				fmt.Fprint(stderr, res.Diagnostics.Format(wd))
				return &exitError{code: exitDiag}
			}
			if check && len(res.Changes) > 0 {
				for _, c := range res.Changes {
					fmt.Fprint(stdout, c.Diff)
				}
				names := make([]string, len(res.Changes))
				for i, c := range res.Changes {
					names[i] = c.Action + " " + relTo(wd, c.Path)
				}
				return &exitError{exitDiag, fmt.Errorf("generated files are not up to date (run elicitgen): %s", strings.Join(names, ", "))}
			}
			return nil
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.AddCommand(newStubCmd(stdout, stderr))
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; exit 1 with a diff when generated files are missing or stale")
	cmd.Flags().StringVar(&tags, "tags", "", "comma-separated build tags")
	cmd.Flags().BoolVar(&version, "version", false, "print the version and exit")
	cmd.Flags().SortFlags = false
	return cmd
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

var genVersion = elicitrt.GenVersion
