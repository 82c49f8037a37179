package gen

import (
	"maps"
	"regexp"
	"slices"
)

// Result is the outcome of Generate.
type Result struct {
	// Diagnostics, when not empty, mean nothing was emitted or written.
	Diagnostics Diagnostics
	// Changes lists what was written (or, in check mode, what would be,
	// with their diffs).
	Changes []Change
	// Unchanged counts the generated files whose bytes were already right.
	Unchanged int
}

// run loads, checks and emits (the generated code, then each package's
// contract: a data file, nothing a server links), without touching the
// disk. Diagnostics are
// returned as such, never as the error; the error is for failures of the go
// command or of rendering.
func run(cfg Config) (Diagnostics, *output, error) {
	diags, m, err := loadModel(cfg)
	if err != nil || len(diags) > 0 {
		return diags, nil, err
	}
	out, err := emit(m)
	if err != nil {
		return nil, nil, err
	}
	contractFiles(m, out)
	return nil, out, nil
}

// loadModel runs Load and Check: the model, or the diagnostics, then the
// generated files that no longer compile (which stay as they are).
func loadModel(cfg Config) (Diagnostics, *model, error) {
	pkgs, fset, loadDiags, broken, err := loadPackages(cfg)
	if err != nil {
		return nil, nil, err
	}
	m, diags := checkPackages(pkgs, fset)
	if loadDiags = withoutPending(loadDiags, m); len(loadDiags) > 0 {
		return append(loadDiags, broken...), nil, nil
	}
	excluded := excludedFiles(pkgs, cfg)
	for _, port := range slices.Sorted(maps.Keys(excluded)) {
		pm, pd, err := loadPlatform(cfg, port, excluded[port])
		if err != nil {
			return nil, nil, err
		}
		mergeModel(m, pm)
		diags = append(diags, pd...)
	}
	if len(diags) > 0 {
		return append(sortDiagnostics(diags), broken...), nil, nil
	}
	return nil, m, nil
}

// Generate runs the whole pipeline: load, check, emit, and write unless
// checkOnly.
func Generate(cfg Config, checkOnly bool) (*Result, error) {
	diags, out, err := run(cfg)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return &Result{Diagnostics: diags}, nil
	}
	changes, unchanged, err := compare(out, cfg.Dir, checkOnly) // only check mode shows diffs
	if err != nil {
		return nil, err
	}
	if !checkOnly {
		if err := write(out, changes); err != nil {
			return nil, err
		}
	}
	return &Result{Changes: changes, Unchanged: unchanged}, nil
}

var (
	undefinedName = regexp.MustCompile(`^undefined: (\w+)$`)
	missingMethod = regexp.MustCompile(`\(type (\w+) has no field or method (\w+)\)$`)
)

// withoutPending drops the compiler errors that only say that something
// elicitgen is about to generate does not exist yet: user code may call a
// Register function, implement a handler interface or call a form's methods
// before the first run.
func withoutPending(diags Diagnostics, m *model) Diagnostics {
	if len(diags) == 0 {
		return diags
	}
	names := map[string]bool{}
	methods := map[string]bool{"ElicitSchema": true, "ElicitParams": true, "DecodeElicit": true}
	forms := map[string]bool{}
	for _, p := range m.Packages {
		for _, f := range p.Files {
			for _, form := range f.Forms {
				forms[form.Name] = true
			}
			for _, t := range f.Tools {
				for _, n := range generatedNames(t) {
					names[n] = true
				}
			}
		}
	}
	var kept Diagnostics
	for _, d := range diags {
		if g := undefinedName.FindStringSubmatch(d.Message); g != nil && names[g[1]] {
			continue
		}
		if g := missingMethod.FindStringSubmatch(d.Message); g != nil && forms[g[1]] && methods[g[2]] {
			continue
		}
		kept = append(kept, d)
	}
	return kept
}

// Config says what to generate for.
type Config struct {
	// Dir is the directory patterns are resolved in and diagnostics are made
	// relative to. Empty means the current directory.
	Dir string
	// Patterns are go/packages patterns; empty means ".".
	Patterns []string
	// BuildFlags are passed to the go command (for example "-tags=foo").
	BuildFlags []string
	// Env, when set, is the environment of the go command.
	Env []string
}
