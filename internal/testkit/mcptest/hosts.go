package mcptest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Host is an MCP host as it behaves on the wire, from its public issue
// tracker (December 2026; docs/hosts.md): the protocol era it speaks, the
// elicitation modes it declares, and what it does with a question.
type Host struct {
	Name, Version string
	// Era is "legacy" (2025-11-25) or "modern" (2026-07-28).
	Era string
	// Form and URL are the modes declared; neither: no elicitation at all.
	Form, URL bool
	// Declines: it declines every elicitation (Codex, unless the user
	// opted in). FirstOption: it fills a required enum with its first
	// option and answers without the person (Goose).
	Declines, FirstOption bool
	// Probe: it sends server/discover before initialize on one connection
	// (TestStdioProbeThenInitialize covers the sequence).
	Probe bool
}

// Hosts are the hosts docs/hosts.md describes, in its order.
var Hosts = []Host{
	{Name: "Claude Code", Version: "2.1.2xx", Era: "legacy", Form: true, Probe: true},
	{Name: "GitHub Copilot CLI", Version: "1.0.8x", Era: "legacy", Form: true, URL: true, Probe: true},
	{Name: "VS Code + Copilot Chat", Version: "1.132", Era: "legacy", Form: true, URL: true},
	{Name: "Cursor", Version: "December 2026", Era: "legacy", Form: true},
	{Name: "Codex", Version: "December 2026", Era: "legacy", Form: true, Declines: true},
	{Name: "Goose", Version: "December 2026", Era: "legacy", Form: true, FirstOption: true},
	{Name: "Claude Desktop chat, Claude.ai", Version: "December 2026", Era: "legacy"},
	{Name: "MCP Inspector", Version: "2.x", Era: "modern", Form: true, URL: true},
	{Name: "go-sdk client", Version: "v1.8.0", Era: "modern", Form: true, URL: true},
}

// Capabilities are the client capabilities h declares.
func (h Host) Capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if h.Form || h.URL {
		caps.Elicitation = &mcp.ElicitationCapabilities{}
		if h.URL {
			caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
			caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	return caps
}

// Options connects as h, with person answering what h shows (nil when h
// declares no elicitation); h's own behaviour (declining, filling the first
// option) stands in front of person.
func (h Host) Options(person func(*mcp.ElicitParams) *mcp.ElicitResult) Options {
	o := Options{Capabilities: h.Capabilities(), Client: &mcp.Implementation{Name: h.Name, Version: h.Version}}
	if !h.Form && !h.URL {
		return o
	}
	answer := person
	switch {
	case h.Declines:
		answer = func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }
	case h.FirstOption:
		answer = func(p *mcp.ElicitParams) *mcp.ElicitResult { return FirstOptions(p) }
	}
	o.User = &User{Answer: answer}
	return o
}

// FirstOptions accepts a form with the first option of each enum, and
// false for each boolean: what a host that answers for the person sends.
func FirstOptions(p *mcp.ElicitParams) *mcp.ElicitResult {
	content := map[string]any{}
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	if raw, err := json.Marshal(p.RequestedSchema); err == nil {
		json.Unmarshal(raw, &schema)
	}
	props := schema.Properties
	for name, raw := range props {
		prop, _ := raw.(map[string]any)
		switch {
		case prop["oneOf"] != nil:
			if first, ok := prop["oneOf"].([]any)[0].(map[string]any); ok {
				content[name] = first["const"]
			}
		case prop["enum"] != nil:
			content[name] = prop["enum"].([]any)[0]
		case prop["type"] == "boolean":
			content[name] = false
		}
	}
	return Accept(content)
}

// Declares names the elicitation modes h declares, as docs/hosts.md says.
func (h Host) Declares() string {
	switch {
	case h.URL:
		return "form, url"
	case h.Form:
		return "`{}` (form)"
	}
	return "none"
}

// HostRow is one host's row of a table of docs/hosts.md: what a person
// sees of one call.
type HostRow struct {
	Host Host
	Sees string
}

// HostTable holds the table named name of docs/hosts.md (between
// "<!-- hosts: NAME -->" and "<!-- /hosts: NAME -->") to rows: the test
// fails when they differ, and ELICITGEN_UPDATE_HOSTS=1 rewrites it.
func HostTable(t *testing.T, root, name string, rows []HostRow) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| host | as of | era | declares | what the person sees |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		era := map[string]string{"legacy": "2025-11-25", "modern": "2026-07-28"}[r.Host.Era]
		b.WriteString("| " + r.Host.Name + " | " + r.Host.Version + " | " + era + " | " + r.Host.Declares() + " | " + strings.ReplaceAll(r.Sees, "|", "\\|") + " |\n")
	}
	path := filepath.Join(root, "docs", "hosts.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- hosts: "+name+" -->\n", "<!-- /hosts: "+name+" -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("docs/hosts.md has no table %s", name)
	}
	have, want := string(doc[i+len(begin):j]), b.String()
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
	t.Errorf("docs/hosts.md, table %s, is not what the hosts see (ELICITGEN_UPDATE_HOSTS=1 go test rewrites it):\nhave:\n%s\nwant:\n%s", name, have, want)
}

// Sees is what a person of one host saw of one call: each question
// (a form's message, or "a URL step"), then the result's first line or
// the error.
func Sees(u *User, res *mcp.CallToolResult, err error) string {
	var parts []string
	if u != nil {
		u.mu.Lock()
		for _, p := range u.Asked {
			if p.Mode == "url" {
				parts = append(parts, "URL step: "+p.Message)
			} else {
				parts = append(parts, "form: "+p.Message)
			}
		}
		u.mu.Unlock()
	}
	switch {
	case err != nil:
		parts = append(parts, "error: "+err.Error())
	case res != nil && len(res.Content) == 2 && strings.Contains(res.Content[1].(*mcp.TextContent).Text, "confirmation_token"):
		parts = append(parts, "preview: "+Text(&mcp.CallToolResult{Content: res.Content[:1]})+" (and a confirmation token)")
	default:
		text := Text(res)
		if strings.Contains(text, "?flow=") {
			first, _, _ := strings.Cut(text, "\n")
			text = first + " (the link in the result)"
		}
		if res != nil && res.IsError {
			text = "tool error: " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " → ")
}

// HostRows runs sees for every host of Hosts over stdio and over HTTP,
// fails the test where the two differ, and returns the rows.
func HostRows(t *testing.T, sees func(h Host, transport string) string) []HostRow {
	t.Helper()
	var rows []HostRow
	for _, h := range Hosts {
		stdio, http := sees(h, "stdio"), sees(h, "http")
		if stdio != http {
			t.Errorf("%s: over stdio %q, over HTTP %q", h.Name, stdio, http)
		}
		rows = append(rows, HostRow{Host: h, Sees: http})
	}
	return rows
}
