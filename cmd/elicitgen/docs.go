package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/elicitgen/elicitgen/gen"
)

func newDocsCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, out, tags string
	cmd := &cobra.Command{
		Use:   "docs [--format md|html|json] [-o FILE] [packages]",
		Short: "Write the reference of what every tool, prompt and resource asks, and what each host shows",
		Long: `docs writes the reference of every tool, prompt and resource the packages
given (default ".") declare: the arguments, then each step in order (its key
and mode, its message, when it is asked, its form's fields with their titles,
types, defaults, bounds and enum values), what the model gets when no person
can be asked, and what each host of the host matrix shows for it.

--format md (the default) is for a README or a pull request; html renders
every form as a host shows it, in one self-contained page; json is the
versioned schema of docs/reference/reference-docs.md, the same as the elicit.contract.json
that elicitgen writes beside each package's generated code.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			cfg := gen.Config{Dir: wd, Patterns: args}
			if tags != "" {
				cfg.BuildFlags = []string{"-tags=" + tags}
			}
			return writeDocs(cfg, format, out, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "md, html or json")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of the standard output")
	cmd.Flags().StringVar(&tags, "tags", "", "comma-separated build tags")
	return cmd
}

func writeDocs(cfg gen.Config, format, out string, stdout, stderr io.Writer) error {
	if format != "md" && format != "html" && format != "json" {
		return &exitError{exitUsage, fmt.Errorf("--format %q: md, html or json", format)}
	}
	diags, ref, err := gen.Docs(cfg)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if len(diags) > 0 {
		fmt.Fprint(stderr, diags.Format(cfg.Dir))
		return &exitError{code: exitDiag}
	}
	b, err := ref.Render(format)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if out == "" {
		_, err = stdout.Write(b)
	} else {
		err = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		return &exitError{exitUsage, err}
	}
	return nil
}

func newDiffCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two contracts (elicit.contract.json) and say what each change means; exit 1 on a breaking one",
		Long: `diff compares two contracts, as elicitgen writes them beside generated code
(or as elicitgen docs --format json writes them), and prints each change in
words, classified:

  breaking                  for clients and hosts: a tool, step, field or enum
                            value removed, a field made required without a
                            default, a type, key or mode changed, bounds
                            tightened (exit 1)
  restarts flows in flight  a step's digest changed (what the person sees or
                            what an answer means: a title, a message): on a
                            rolling deploy, flows in flight restart (exit 0)
  compatible                what only the model reads, values added, bounds
                            loosened (exit 0)

In CI, against the target branch:
  git show origin/main:path/elicit.contract.json > base.json
  go tool elicitgen diff base.json path/elicit.contract.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return diffContracts(args[0], args[1], stdout)
		},
	}
}

func diffContracts(oldPath, newPath string, stdout io.Writer) error {
	var refs [2]*gen.Reference
	for i, p := range []string{oldPath, newPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		if refs[i], err = gen.ParseReference(b); err != nil {
			return &exitError{exitUsage, fmt.Errorf("%s: %v", p, err)}
		}
	}
	changes := gen.DiffReferences(refs[0], refs[1])
	counts := map[gen.ChangeClass]int{}
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
		counts[c.Class]++
	}
	fmt.Fprintln(stdout, diffSummary(counts))
	if counts[gen.Breaking] > 0 {
		return &exitError{code: exitDiag}
	}
	return nil
}

// diffSummary is diff's last line.
func diffSummary(counts map[gen.ChangeClass]int) string {
	switch {
	case counts[gen.Breaking] > 0:
		return fmt.Sprintf("elicitgen diff: %s for clients and hosts", plural(counts[gen.Breaking], "breaking change"))
	case counts[gen.Restarts] > 0:
		return "elicitgen diff: not breaking; on a rolling deploy, flows in flight restart"
	case counts[gen.Compatible] > 0:
		return "elicitgen diff: compatible"
	}
	return "elicitgen diff: no change"
}
