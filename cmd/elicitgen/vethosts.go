package main

import "github.com/elicitgen/elicitgen/gen"

// vetHosts is what elicitgen vet --hosts adds: at each step, what a host
// of the host matrix cannot show of it and what its person gets instead,
// as file:line:col: lines relative to dir. The packages' diagnostics, if
// they do not check, are vet's own report already: none is added here.
func vetHosts(dir, tags string, patterns []string) ([]string, error) {
	cfg := gen.Config{Dir: dir, Patterns: patterns}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	diags, notes, err := gen.HostNotes(cfg)
	if err != nil || len(diags) > 0 {
		return nil, err
	}
	lines := make([]string, len(notes))
	for i, n := range notes {
		lines[i] = n.Format(dir)
	}
	return lines, nil
}
