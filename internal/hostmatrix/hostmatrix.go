// Package hostmatrix is the table of MCP hosts as they are this month:
// which protocol eras each speaks, whether it shows forms and URL steps,
// which form fields it can show, and what else it does with a question.
// It is pure data (no imports), a leaf that both elicitgen (the "what
// each host shows" notes of elicitgen docs and its contract) and the host
// emulation tests read, so the notes and the emulation cannot disagree.
// Each row carries its public source and the date it was read; update a
// row there (and docs/hosts.md) when a host changes.
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
	// Eras are the protocol versions it speaks, its default first; Note
	// says over which transport when that matters.
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
	// Declines: it declines every elicitation unless the person opted in.
	Declines bool
	// FirstOption: it fills a required enum with its first option and
	// answers without the person.
	FirstOption bool
	// Note is what else a server meets, in words.
	Note string
	// Source is where the behaviour is documented; Date when it was read.
	Source, Date string
}

// Hosts are the hosts of docs/hosts.md, in its order.
var Hosts = []Host{
	{Name: "Claude Code", Version: "2.1.232+", Eras: []string{Modern, Legacy}, Form: true,
		Note:   "2026-07-28 over HTTP by default; 2025-11-25 over stdio unless MCP_PROTOCOL_NEGOTIATION=auto; declares elicitation: {} (form only)",
		Source: "anthropics/claude-code #88075", Date: "2026-12"},
	{Name: "GitHub Copilot CLI", Version: "1.0.8x", Eras: []string{Legacy}, Form: true, URL: true,
		Note:   "sends server/discover, then initialize on the same connection",
		Source: "github/copilot-cli", Date: "2026-12"},
	{Name: "VS Code + Copilot Chat", Version: "1.132", Eras: []string{Legacy}, Form: true, URL: true,
		Note:   "2025-11-25 only: a modern-only server gets 400",
		Source: "microsoft/vscode", Date: "2026-12"},
	{Name: "Cursor", Version: "December 2026", Eras: []string{Legacy}, Form: true,
		Source: "cursor forum", Date: "2026-12"},
	{Name: "Codex", Version: "December 2026", Eras: []string{Legacy, Modern}, Form: true,
		Cannot: []string{Integer, Number, Multi}, Declines: true,
		Note:   "shows string, enum, titled enum and boolean fields and their defaults; 2026-07-28 is opt-in (server/discover)",
		Source: "openai/codex #17043, #35725; laravel/mcp #190", Date: "2026-12"},
	{Name: "Goose", Version: "December 2026", Eras: []string{Legacy}, Form: true, FirstOption: true,
		Source: "block/goose", Date: "2026-12"},
	{Name: "opencode", Version: "December 2026", Eras: []string{Legacy}, Form: true,
		Source: "sst/opencode #35064", Date: "2026-12"},
	{Name: "Cowork", Version: "December 2026", Eras: []string{Modern}, Form: true, Drops: true, DropWait: "180 s",
		Note:   "declares elicitation on 2026-07-28, then drops the request",
		Source: "anthropics/claude-ai-mcp #1046", Date: "2026-12"},
	{Name: "Claude Desktop chat, Claude.ai", Version: "December 2026", Eras: []string{Legacy},
		Note:   "tools that need a person are hidden or fail",
		Source: "anthropics/claude-ai-mcp", Date: "2026-12"},
	{Name: "Gemini CLI", Version: "December 2026", Eras: []string{Legacy},
		Note:   "no elicitation",
		Source: "google-gemini/gemini-cli", Date: "2026-12"},
	{Name: "MCP Inspector", Version: "2.x", Eras: []string{Modern, Legacy}, Form: true, URL: true,
		Source: "modelcontextprotocol/inspector", Date: "2026-12"},
	{Name: "go-sdk client", Version: "v1.8.0", Eras: []string{Modern}, Form: true, URL: true,
		Source: "modelcontextprotocol/go-sdk", Date: "2026-12"},
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
