// Package hostmatrix is the table of MCP hosts as they are this month:
// which protocol eras each speaks, whether it shows forms and URL steps,
// which form fields it can show, and what else it does with a question.
// It is pure data (no imports), a leaf that both elicitgen (the "what
// each host shows" notes of elicitgen docs and its contract) and the host
// emulation tests read, so the notes and the emulation cannot disagree.
// Each row carries its public source and the date it was read; update a
// row there (and docs/results/hosts.md) when a host changes.
package hostmatrix

// Field kinds, as Host.Cannot names them: the JSON Schema shape of a form
// property (an enum with titles is TitledEnum).
const (
	String     = "string"
	Boolean    = "boolean"
	Integer    = "integer"
	Number     = "number"
	Enum       = "enum"
	TitledEnum = "titled enum"
	Multi      = "multi-select"
)

// Protocol eras.
const (
	Legacy = "2025-11-25"
	Modern = "2026-07-28"
)

// A Host is one MCP host as it behaves on the wire.
type Host struct {
	Name    string
	Version string // the version (or month) the row describes
	// Eras are the protocol versions it speaks by default; Note
	// says over which transport when that matters (the emulation holds the
	// transports of each era).
	Eras []string
	// Form and URL are the elicitation modes it shows; neither: it
	// declares no elicitation at all.
	Form, URL bool
	// Cannot lists the field kinds it does not render: a form with one
	// of them is shown as approve or decline only, so nothing is entered
	// and nothing of the form comes back.
	Cannot []string
	// Drops: it declares elicitation, then drops the request: the person
	// sees nothing and the call waits (DropWait) for an answer that never
	// comes.
	Drops    bool
	DropWait string
	// Declines: it declines every elicitation unless the person opted in
	// (no host of Hosts does so today).
	Declines bool
	// FirstOption: it fills a required enum with its first option and
	// answers without the person.
	FirstOption bool
	// Discovers: it may send server/discover before initialize on one
	// connection.
	Discovers bool
	// Note is what else a server meets, in words.
	Note string
	// Source is where the behaviour is documented; Date when it was read.
	Source, Date string
}

// Hosts are the hosts of docs/results/hosts.md, in its order. The host emulation
// (runtime/elicittest/hosttest) builds its hosts from these rows.
var Hosts = []Host{
	{Name: "Claude Code", Version: "≥ 2.1.232", Eras: []string{Modern, Legacy}, Form: true, Discovers: true,
		Note:   "2026-07-28 over HTTP by default; 2025-11-25 over stdio unless MCP_PROTOCOL_NEGOTIATION=auto; declares elicitation: {} (form only)",
		Source: "anthropics/claude-code#88075, laravel/mcp#190", Date: "autumn 2026"},
	{Name: "GitHub Copilot CLI", Version: "1.0.8x", Eras: []string{Legacy}, Form: true, URL: true, Discovers: true,
		Source: "github/copilot-cli", Date: "December 2026"},
	{Name: "VS Code + Copilot Chat", Version: "1.132", Eras: []string{Legacy}, Form: true, URL: true,
		Note:   "2025-11-25 only: a modern-only server gets 400",
		Source: "microsoft/vscode", Date: "autumn 2026"},
	{Name: "Cursor", Version: "December 2026", Eras: []string{Legacy}, Form: true,
		Source: "cursor forum", Date: "December 2026"},
	{Name: "Codex", Version: "0.151", Eras: []string{Legacy}, Form: true,
		Cannot: []string{Integer, Number, Multi},
		Note:   "shows string, enum, titled enum and boolean fields; approving a form it cannot show accepts with empty content",
		Source: "openai/codex#41797, laravel/mcp#190", Date: "August 2026"},
	{Name: "Goose", Version: "December 2026", Eras: []string{Legacy}, Form: true, FirstOption: true,
		Source: "block/goose", Date: "December 2026"},
	{Name: "opencode", Version: "July 2026", Eras: []string{Legacy}, Form: true,
		Source: "anomalyco/opencode#35064", Date: "July 2026"},
	{Name: "Cowork (Claude Desktop)", Version: "2.1.273", Eras: []string{Modern}, Form: true, Drops: true, DropWait: "180 s",
		Note:   "declares elicitation on 2026-07-28, then drops the request",
		Source: "anthropics/claude-ai-mcp#1046", Date: "September 2026"},
	{Name: "Claude Desktop chat, Claude.ai", Version: "December 2026", Eras: []string{Legacy},
		Note:   "tools that need a person are hidden or fail",
		Source: "anthropics/claude-ai-mcp", Date: "December 2026"},
	{Name: "Gemini CLI", Version: "autumn 2026", Eras: []string{Legacy},
		Note:   "no elicitation",
		Source: "google-gemini/gemini-cli", Date: "autumn 2026"},
	{Name: "MCP Inspector", Version: "2.x", Eras: []string{Modern}, Form: true, URL: true,
		Source: "modelcontextprotocol/inspector", Date: "December 2026"},
	{Name: "go-sdk client", Version: "v1.8.0", Eras: []string{Modern}, Form: true, URL: true,
		Source: "modelcontextprotocol/go-sdk", Date: "December 2026"},
}

// CannotShow reports whether h renders no field of kind (a Host.Cannot
// kind).
func (h Host) CannotShow(kind string) bool {
	for _, k := range h.Cannot {
		if k == kind {
			return true
		}
	}
	return false
}
