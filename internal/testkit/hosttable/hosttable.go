// Package hosttable writes and holds the generated tables of docs/results/hosts.md
// from the public kit's host emulation (runtime/elicittest/hosttest): the
// matrix of hosts, and a table per example of what a person of each host
// sees. It is the repository's own: no conversation is here.
package hosttable

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// MatrixTable holds the table "matrix" of docs/results/hosts.md to Hosts: each
// host's eras and transports, the modes it declares, the field kinds its
// forms show, what else it does, and where and when that is documented.
func MatrixTable(t *testing.T, root string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| host | version | protocol, by default | declares | form fields shown | also | source, as of |\n|---|---|---|---|---|---|---|\n")
	for _, h := range hosttest.Hosts {
		var eras []string
		for _, s := range h.Sessions {
			eras = append(eras, hosttest.EraName(s.Era)+" over "+strings.Join(s.Transports, ", "))
		}
		hosttest.WriteRow(&b, []string{h.Name, h.Version, strings.Join(eras, "; "), h.Declares(), fieldsShown(h), also(h), h.Source + ", " + h.Date})
	}
	hosttest.HoldSection(t, filepath.Join(root, "docs", "results", "hosts.md"), "matrix", b.String())
}

// fieldsShown says which field kinds h's forms show.
func fieldsShown(h hosttest.Host) string {
	switch {
	case !h.Form && !h.URL:
		return "–"
	case len(h.Cannot) == 0:
		return "all"
	}
	var shown []string
	for _, k := range hosttest.FieldKinds {
		if !h.CannotShow(k) {
			shown = append(shown, k)
		}
	}
	return strings.Join(shown, ", ") + "; a form with " + strings.Join(h.Cannot, ", ") + " fields: approve or decline only, approving sends no field"
}

// also says what else h does with a question.
func also(h hosttest.Host) string {
	var notes []string
	if h.FirstOption {
		notes = append(notes, "fills a required enum with its first option, without the person")
	}
	if h.Drops {
		notes = append(notes, "drops every question and leaves the call open "+h.DropWait)
	}
	if h.Declines {
		notes = append(notes, "declines every question unless the person opted in")
	}
	if h.Discovers {
		notes = append(notes, "may send `server/discover` before `initialize`")
	}
	return strings.Join(notes, "; ")
}
