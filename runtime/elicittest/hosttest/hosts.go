package hosttest

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/elicitgen/elicitgen/internal/hostmatrix"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Host is an MCP host as the emulation plays it: its row of
// hostmatrix.Hosts (the one table of host facts, which elicitgen's host
// notes read too: eras, modes, the field kinds it cannot show, drops,
// answering for the person, source and date), and what only the
// emulation needs: the transports of each era and the capabilities JSON.
type Host struct {
	hostmatrix.Host
	// Sessions are the eras it speaks by default (the row's Eras), each
	// over its transports.
	Sessions []Session
	// FormKey: form is declared as {"form":{}} rather than {}.
	FormKey bool
}

// A Session is a protocol era ("legacy" is 2025-11-25, "modern"
// 2026-07-28) and the transports ("stdio", "http") a host speaks it on.
type Session struct {
	Era        string
	Transports []string
}

// emulation is what the emulation adds to the hostmatrix row it names:
// the transports of an era, when not both, and FormKey.
type emulation struct {
	transports map[string][]string
	formKey    bool
}

var emulations = map[string]emulation{
	"Claude Code": {transports: map[string][]string{hostmatrix.Modern: {"http"}, hostmatrix.Legacy: {"stdio"}}},
	"opencode":    {formKey: true},
}

// NotEmulated names the hostmatrix hosts the emulation leaves out, each
// with the reason (none today: every host is emulated).
var NotEmulated = map[string]string{}

// FieldKinds are the kinds of form field a host may or may not show.
var FieldKinds = []string{hostmatrix.String, hostmatrix.Enum, hostmatrix.TitledEnum, hostmatrix.Boolean,
	hostmatrix.Integer, hostmatrix.Number, hostmatrix.Multi}

// Hosts are the hosts docs/results/hosts.md describes, in its order: one per
// row of hostmatrix.Hosts not NotEmulated.
var Hosts = emulate(hostmatrix.Hosts)

// emulate builds the emulated host of each row of rows.
func emulate(rows []hostmatrix.Host) []Host {
	var hosts []Host
	for _, row := range rows {
		if _, skip := NotEmulated[row.Name]; skip {
			continue
		}
		e := emulations[row.Name]
		h := Host{Host: row, FormKey: e.formKey}
		for _, era := range row.Eras {
			transports := e.transports[era]
			if transports == nil {
				transports = []string{"stdio", "http"}
			}
			h.Sessions = append(h.Sessions, Session{Era: eraOf[era], Transports: transports})
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// eraOf is the era of a protocol version.
var eraOf = map[string]string{hostmatrix.Legacy: "legacy", hostmatrix.Modern: "modern"}

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
	u := &User{Answer: person}
	if h.Drops {
		u.Drops = h.DropWait
	}
	switch {
	case h.Declines:
		u.Answer = func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }
	case h.FirstOption:
		u.Answer = func(p *mcp.ElicitParams) *mcp.ElicitResult {
			for _, kind := range formKinds(p) {
				if kind == hostmatrix.Enum || kind == hostmatrix.TitledEnum {
					return FirstOptions(p)
				}
			}
			return person(p)
		}
	case len(h.Cannot) > 0:
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
	if len(h.Cannot) == 0 || p.Mode == "url" {
		return nil
	}
	var hidden []string
	for name, kind := range formKinds(p) {
		if h.CannotShow(kind) {
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

// formKinds returns the kind (FieldKinds) of each field of p's form.
func formKinds(p *mcp.ElicitParams) map[string]string {
	kinds := map[string]string{}
	for name, prop := range properties(p) {
		kind, _ := prop["type"].(string)
		switch {
		case kind == "array":
			kind = hostmatrix.Multi
		case kind == "string" && prop["oneOf"] != nil:
			kind = hostmatrix.TitledEnum
		case kind == "string" && prop["enum"] != nil:
			kind = hostmatrix.Enum
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

// Declares names the elicitation modes h declares, as docs/results/hosts.md says.
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

// EraName is the protocol version of an era ("legacy" or "modern").
func EraName(era string) string {
	return map[string]string{"legacy": "2025-11-25", "modern": "2026-07-28"}[era]
}
