package mcptest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A DroppedError is what CallTool returns when the host dropped a
// question it declared it could show: the call stays open until the host
// gives up After its timeout; the emulation stops as soon as the question
// is dropped instead of waiting.
type DroppedError struct{ After string }

func (e *DroppedError) Error() string {
	return "no answer: the question is dropped and the call stays open until the host gives up (" + e.After + ")"
}

// CallTool calls the tool p names as the person u of a host: when u drops
// questions, the call is abandoned once one is dropped, and the error is
// a *DroppedError; otherwise it is cs.CallTool.
func CallTool(ctx context.Context, cs *mcp.ClientSession, u *User, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if u == nil || u.Drops == "" {
		return cs.CallTool(ctx, p)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	u.mu.Lock()
	u.dropped, u.abandoned = make(chan struct{}), make(chan struct{})
	dropped, abandoned := u.dropped, u.abandoned
	u.mu.Unlock()
	go func() {
		select {
		case <-dropped:
			cancel()
			close(abandoned)
		case <-ctx.Done():
		}
	}()
	res, err := cs.CallTool(ctx, p)
	select {
	case <-dropped:
		return nil, &DroppedError{After: u.Drops}
	default:
		return res, err
	}
}

// HostRow is one row of a table of docs/results/hosts.md: what a person of Host
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

// HostTable holds the table named name of docs/results/hosts.md (between
// "<!-- hosts: NAME -->" and "<!-- /hosts: NAME -->") to rows: the test
// fails when they differ, and ELICITGEN_UPDATE_HOSTS=1 rewrites it.
func HostTable(t *testing.T, root, name string, rows []HostRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| host | version | era | over | declares | what the person sees |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		cells := []string{r.Host.Name, r.Host.Version, eraName(r.Era), strings.Join(r.Transports, ", "), r.Host.Declares(), r.Sees}
		writeRow(&b, cells)
	}
	HoldSection(t, root, name, b.String())
}

// MatrixTable holds the table "matrix" of docs/results/hosts.md to Hosts: each
// host's eras and transports, the modes it declares, the field kinds its
// forms show, what else it does, and where and when that is documented.
func MatrixTable(t *testing.T, root string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| host | version | protocol, by default | declares | form fields shown | also | source, as of |\n|---|---|---|---|---|---|---|\n")
	for _, h := range Hosts {
		var eras []string
		for _, s := range h.Sessions {
			eras = append(eras, eraName(s.Era)+" over "+strings.Join(s.Transports, ", "))
		}
		writeRow(&b, []string{h.Name, h.Version, strings.Join(eras, "; "), h.Declares(), h.fieldsShown(), h.also(), h.Source + ", " + h.Date})
	}
	HoldSection(t, root, "matrix", b.String())
}

// fieldsShown says which field kinds h's forms show.
func (h Host) fieldsShown() string {
	switch {
	case !h.Form && !h.URL:
		return "–"
	case len(h.Cannot) == 0:
		return "all"
	}
	var shown []string
	for _, k := range FieldKinds {
		if !h.CannotShow(k) {
			shown = append(shown, k)
		}
	}
	return strings.Join(shown, ", ") + "; a form with " + strings.Join(h.Cannot, ", ") + " fields: approve or decline only, approving sends no field"
}

// also says what else h does with a question.
func (h Host) also() string {
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

func writeRow(b *strings.Builder, cells []string) {
	for i, c := range cells {
		// A re-asked form's message has its reasons on lines of their own.
		cells[i] = strings.ReplaceAll(strings.Join(strings.Fields(c), " "), "|", "\\|")
	}
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// HoldSection holds the section named name of docs/results/hosts.md (between
// "<!-- hosts: NAME -->" and "<!-- /hosts: NAME -->") to want: the test
// fails when they differ, and ELICITGEN_UPDATE_HOSTS=1 rewrites it.
func HoldSection(t *testing.T, root, name, want string) {
	t.Helper()
	path := filepath.Join(root, "docs", "results", "hosts.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- hosts: "+name+" -->\n", "<!-- /hosts: "+name+" -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("docs/results/hosts.md has no table %s", name)
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
	t.Errorf("docs/results/hosts.md, table %s, is not what the hosts see (ELICITGEN_UPDATE_HOSTS=1 go test rewrites it):\nhave:\n%s\nwant:\n%s", name, have, want)
}

// Sees is what a person of one host saw of one call: each question
// (a form's message, or "a URL step", or what u.Shows says), then the
// result's first line or the error.
func Sees(u *User, res *mcp.CallToolResult, err error) string {
	var parts []string
	if u != nil {
		u.mu.Lock()
		for _, p := range u.Asked {
			switch {
			case u.Shows != nil:
				parts = append(parts, u.Shows(p))
			case p.Mode == "url":
				parts = append(parts, "URL step: "+p.Message)
			default:
				parts = append(parts, "form: "+p.Message)
			}
		}
		u.mu.Unlock()
	}
	return strings.Join(append(parts, outcome(res, err)), " → ")
}

// outcome is the result's first line, or the error.
func outcome(res *mcp.CallToolResult, err error) string {
	var dropped *DroppedError
	switch {
	case errors.As(err, &dropped):
		return dropped.Error()
	case err != nil:
		return "error: " + err.Error()
	case res != nil && len(res.Content) == 2 && strings.Contains(Text(&mcp.CallToolResult{Content: res.Content[1:]}), "confirmation_token"):
		return "preview: " + Text(&mcp.CallToolResult{Content: res.Content[:1]}) + " (and a confirmation token)"
	}
	text := Text(res)
	if strings.Contains(text, "?flow=") {
		first, _, _ := strings.Cut(text, "\n")
		text = first + " (the link in the result)"
	}
	if res != nil && res.IsError {
		text = "tool error: " + text
	}
	return text
}
