package hosttest

import (
	"os"
	"strings"
	"testing"
)

// HostRow is one row of a HostTable: what a person of Host
// sees of one call on Era, the same over each of Transports.
type HostRow struct {
	Host       Host
	Era        string
	Transports []string
	Sees       string
}

// HostRows runs sees for every host of Hosts on each of its eras, over
// each transport of that era, fails the test where two transports of one
// era differ, and returns a row per host and era.
func HostRows(t *testing.T, sees func(h Host, transport, era string) string) []HostRow {
	t.Helper()
	var rows []HostRow
	for _, h := range Hosts {
		for _, s := range h.Sessions {
			var first string
			for i, transport := range s.Transports {
				got := sees(h, transport, s.Era)
				if i == 0 {
					first = got
				} else if got != first {
					t.Errorf("%s on %s: over %s %q, over %s %q", h.Name, s.Era, s.Transports[0], first, transport, got)
				}
			}
			rows = append(rows, HostRow{Host: h, Era: s.Era, Transports: s.Transports, Sees: first})
		}
	}
	return rows
}

// HostTable holds the table named name of the Markdown file at path
// (between "<!-- hosts: NAME -->" and "<!-- /hosts: NAME -->") to rows:
// the test fails when they differ, and ELICITGEN_UPDATE_HOSTS=1 rewrites
// it. A server's docs show what a person of each host sees this way, held
// by its tests.
func HostTable(t *testing.T, path, name string, rows []HostRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| host | version | era | over | declares | what the person sees |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		cells := []string{r.Host.Name, r.Host.Version, EraName(r.Era), strings.Join(r.Transports, ", "), r.Host.Declares(), r.Sees}
		WriteRow(&b, cells)
	}
	HoldSection(t, path, name, b.String())
}

// WriteRow writes one row of a Markdown table: each cell on one line,
// with its | escaped.
func WriteRow(b *strings.Builder, cells []string) {
	for i, c := range cells {
		// A re-asked form's message has its reasons on lines of their own.
		cells[i] = strings.ReplaceAll(strings.Join(strings.Fields(c), " "), "|", "\\|")
	}
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// HoldSection holds the section named name of the Markdown file at path
// (between "<!-- hosts: NAME -->" and "<!-- /hosts: NAME -->") to want:
// the test fails when they differ, and ELICITGEN_UPDATE_HOSTS=1 rewrites
// it.
func HoldSection(t *testing.T, path, name, want string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- hosts: "+name+" -->\n", "<!-- /hosts: "+name+" -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no table %s", path, name)
	}
	have := string(doc[i+len(begin) : j])
	if have == want {
		return
	}
	if os.Getenv("ELICITGEN_UPDATE_HOSTS") == "1" {
		out := string(doc[:i+len(begin)]) + want + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s, table %s, is not what the hosts see (ELICITGEN_UPDATE_HOSTS=1 go test rewrites it):\nhave:\n%s\nwant:\n%s", path, name, have, want)
}
