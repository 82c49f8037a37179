package mcptest

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Host is an MCP host as it behaves on the wire, from its public issue
// tracker (docs/hosts.md): the protocol era it speaks on each transport,
// the elicitation modes it declares, the field kinds its forms show, and
// what it does with a question. Hosts is the one table of these facts.
type Host struct {
	Name, Version string
	// AsOf and Source: when, and in which public tracker, the behaviour
	// below is documented.
	AsOf, Source string
	// Sessions are the eras it speaks by default, each over its transports.
	Sessions []Session
	// Form and URL are the modes declared; neither: no elicitation at all.
	// FormKey: form is declared as {"form":{}} rather than {}.
	Form, URL, FormKey bool
	// Fields are the field kinds its forms show (FieldKinds); nil: all. A
	// form with any other kind is shown as an approve/decline prompt, and
	// approving it accepts with no field (Codex).
	Fields []string
	// FirstOption: it answers a form with an enum without the person,
	// with the enum's first option and false for each boolean (Goose);
	// any other form goes to the person.
	FirstOption bool
	// Hangs, when set, is how long it leaves the call open after it
	// drops a question it declared it could show (Cowork, "180 s").
	Hangs string
	// Probe: it sends server/discover before initialize on one connection
	// (TestStdioProbeThenInitialize covers the sequence).
	Probe bool
}

// A Session is a protocol era ("legacy" is 2025-11-25, "modern"
// 2026-07-28) and the transports ("stdio", "http") a host speaks it on.
type Session struct {
	Era        string
	Transports []string
}

var (
	both      = []string{"stdio", "http"}
	legacy    = []Session{{Era: "legacy", Transports: both}}
	modern    = []Session{{Era: "modern", Transports: both}}
	basicKind = []string{"string", "enum", "boolean"}
)

// FieldKinds are the kinds of form field a host may or may not show.
var FieldKinds = []string{"string", "enum", "boolean", "integer", "number", "multi-select"}

// Hosts are the hosts docs/hosts.md describes, in its order.
var Hosts = []Host{
	{Name: "Claude Code", Version: "≥ 2.1.232", AsOf: "autumn 2026", Source: "anthropics/claude-code#88075, laravel/mcp#190",
		Sessions: []Session{{Era: "modern", Transports: []string{"http"}}, {Era: "legacy", Transports: []string{"stdio"}}}, Form: true, Probe: true},
	{Name: "GitHub Copilot CLI", Version: "1.0.8x", AsOf: "December 2026", Source: "github/copilot-cli", Sessions: legacy, Form: true, URL: true, Probe: true},
	{Name: "VS Code + Copilot Chat", Version: "1.132", AsOf: "autumn 2026", Source: "microsoft/vscode", Sessions: legacy, Form: true, URL: true},
	{Name: "Cursor", Version: "December 2026", AsOf: "December 2026", Source: "cursor forum", Sessions: legacy, Form: true},
	{Name: "Codex", Version: "0.151", AsOf: "August 2026", Source: "openai/codex#41797, laravel/mcp#190", Sessions: legacy, Form: true, Fields: basicKind},
	{Name: "Goose", Version: "December 2026", AsOf: "December 2026", Source: "block/goose", Sessions: legacy, Form: true, FirstOption: true},
	{Name: "opencode", Version: "July 2026", AsOf: "July 2026", Source: "anomalyco/opencode#35064", Sessions: legacy, Form: true, FormKey: true},
	{Name: "Cowork (Claude Desktop)", Version: "2.1.273", AsOf: "September 2026", Source: "anthropics/claude-ai-mcp#1046", Sessions: modern, Form: true, Hangs: "180 s"},
	{Name: "Claude Desktop chat, Claude.ai", Version: "December 2026", AsOf: "December 2026", Source: "anthropics/claude-ai-mcp", Sessions: legacy},
	{Name: "Gemini CLI", Version: "autumn 2026", AsOf: "autumn 2026", Source: "google-gemini/gemini-cli", Sessions: legacy},
	{Name: "MCP Inspector", Version: "2.x", AsOf: "December 2026", Source: "modelcontextprotocol/inspector", Sessions: modern, Form: true, URL: true},
	{Name: "go-sdk client", Version: "v1.8.0", AsOf: "December 2026", Source: "this repository", Sessions: modern, Form: true, URL: true},
}

// Capabilities are the client capabilities h declares.
func (h Host) Capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if h.Form || h.URL {
		caps.Elicitation = &mcp.ElicitationCapabilities{}
		if h.URL || h.FormKey {
			caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if h.URL {
			caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	return caps
}

// Options connects as h, with person answering what h shows (nil when h
// declares no elicitation); h's own behaviour (an approve/decline prompt
// for a form it cannot show, filling the first option, dropping the
// question) stands in front of person.
func (h Host) Options(person func(*mcp.ElicitParams) *mcp.ElicitResult) Options {
	o := Options{Capabilities: h.Capabilities(), Client: &mcp.Implementation{Name: h.Name, Version: h.Version}}
	if !h.Form && !h.URL {
		return o
	}
	u := &User{Answer: person, Drops: h.Hangs}
	switch {
	case h.FirstOption:
		u.Answer = func(p *mcp.ElicitParams) *mcp.ElicitResult {
			for _, kind := range formKinds(p) {
				if kind == "enum" {
					return FirstOptions(p)
				}
			}
			return person(p)
		}
	case h.Fields != nil:
		u.Shows = h.Shows
		u.Answer = func(p *mcp.ElicitParams) *mcp.ElicitResult {
			if len(h.Hidden(p)) > 0 {
				// The person approves the prompt, which sends no field:
				// accept without content (Codex sends "content":{},
				// which the go-sdk client here would check against the
				// schema itself; to the server both are no field).
				return &mcp.ElicitResult{Action: "accept"}
			}
			return person(p)
		}
	}
	o.User = u
	return o
}

// Hidden lists, as "name (kind)", the fields of p's form whose kind h
// does not show, in name order.
func (h Host) Hidden(p *mcp.ElicitParams) []string {
	if h.Fields == nil || p.Mode == "url" {
		return nil
	}
	var hidden []string
	for name, kind := range formKinds(p) {
		if !contains(h.Fields, kind) {
			hidden = append(hidden, "`"+name+"` ("+kind+")")
		}
	}
	sort.Strings(hidden)
	return hidden
}

// Shows is what a person of h sees of the question p: the form, or the
// approve/decline prompt naming the fields that cannot be entered.
func (h Host) Shows(p *mcp.ElicitParams) string {
	if hidden := h.Hidden(p); len(hidden) > 0 {
		return "approve or decline only, no field for " + strings.Join(hidden, ", ") + ": " + p.Message + " (approved)"
	}
	return "form: " + p.Message
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// formKinds returns the kind (FieldKinds) of each field of p's form.
func formKinds(p *mcp.ElicitParams) map[string]string {
	kinds := map[string]string{}
	for name, prop := range properties(p) {
		kind, _ := prop["type"].(string)
		switch {
		case kind == "array":
			kind = "multi-select"
		case kind == "string" && (prop["enum"] != nil || prop["oneOf"] != nil):
			kind = "enum"
		}
		kinds[name] = kind
	}
	return kinds
}

// properties returns the properties of p's requested schema.
func properties(p *mcp.ElicitParams) map[string]map[string]any {
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if raw, err := json.Marshal(p.RequestedSchema); err == nil {
		json.Unmarshal(raw, &schema)
	}
	return schema.Properties
}

// FirstOptions accepts a form with the first option of each enum, and
// false for each boolean: what a host that answers for the person sends.
func FirstOptions(p *mcp.ElicitParams) *mcp.ElicitResult {
	content := map[string]any{}
	for name, prop := range properties(p) {
		switch {
		case prop["oneOf"] != nil:
			if options, ok := prop["oneOf"].([]any); ok && len(options) > 0 {
				if first, ok := options[0].(map[string]any); ok {
					content[name] = first["const"]
				}
			}
		case prop["enum"] != nil:
			if options, ok := prop["enum"].([]any); ok && len(options) > 0 {
				content[name] = options[0]
			}
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
	case h.FormKey:
		return "form"
	case h.Form:
		return "`{}` (form)"
	}
	return "none"
}

// eraName is the protocol version of an era.
func eraName(era string) string {
	return map[string]string{"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
}
