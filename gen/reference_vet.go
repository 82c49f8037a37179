package gen

import (
	"cmp"
	"slices"
	"strings"
)

// HostNotes loads and checks cfg's packages and returns, at each step a
// host of the host matrix cannot show as declared, what that host's
// person gets instead (elicitgen vet --hosts): a form field the host
// shows as approve or decline only, and a URL step without a fallback on
// the hosts that have no URL mode. The notes are the reference's host
// notes (hostShows), so the docs and vet say the same. Diagnostics
// instead when the packages do not check.
func HostNotes(cfg Config) (Diagnostics, []Diagnostic, error) {
	diags, m, err := loadModel(cfg)
	if err != nil || len(diags) > 0 {
		return diags, nil, err
	}
	var notes []Diagnostic
	seen := map[string]bool{}
	for _, p := range m.Packages {
		for _, f := range p.Files {
			for _, t := range f.Tools {
				for _, s := range t.Steps {
					notes = appendStepNotes(notes, seen, t, s)
				}
			}
		}
	}
	slices.SortFunc(notes, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column), strings.Compare(a.Message, b.Message))
	})
	return nil, notes, nil
}

// appendStepNotes adds the notes of step s of t, once for a step declared
// under several build constraints.
func appendStepNotes(notes []Diagnostic, seen map[string]bool, t *toolModel, s *stepModel) []Diagnostic {
	r := refStep(t, s)
	for _, h := range r.Hosts {
		if !portabilityNote(s, h.Shows) {
			continue
		}
		msg := t.Kind.String() + " " + t.MCPName + ", step " + s.GoName + " (" + s.Key + "): " +
			strings.Join(h.Hosts, ", ") + ": " + h.Shows
		if key := s.Where.String() + msg; !seen[key] {
			seen[key] = true
			notes = append(notes, Diagnostic{Pos: s.Where, Message: msg})
		}
	}
	return notes
}

// portabilityNote reports whether what a host shows of step s is a note
// for its author: a field it cannot take, or a URL step it cannot show
// that has no fallback. A host without elicitation at all, or one that
// falls back as the step declares, is no news at a step.
func portabilityNote(s *stepModel, shows string) bool {
	switch {
	case strings.Contains(shows, "approve or decline only:"):
		return true
	case strings.HasPrefix(shows, "no URL mode:"):
		return cmp.Or(s.Fallback, "error") == "error"
	}
	return false
}
