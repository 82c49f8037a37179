package main

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// Format is the output format of a report.
type Format string

const (
	Markdown Format = "markdown"
	HTML     Format = "html"
	Text     Format = "text"
)

// FormatChoice asks for the report's format, before the work starts.
type FormatChoice struct {
	Format Format `elicit:"format,required"`
}

// SalariesChoice asks, while the report is being written, whether it may
// include the salaries it found.
type SalariesChoice struct {
	// Include the salaries section (each team member's name and pay).
	Include bool `elicit:"include,required"`
}

// ReportArgs are the arguments the model supplies.
type ReportArgs struct {
	Topic   string `json:"topic" jsonschema:"what the report is about"`
	Seconds int    `json:"seconds,omitempty" jsonschema:"how long writing takes, in seconds: 1 to 600 (default 8)"`
}

// Report writes a report on a topic. It asks for the format first; then it
// runs as a task for a while, reporting its progress, and midway asks
// whether to include the salary data it found.
//
//elicit:tool report
//elicit:task optional restartable
type Report struct {
	Args     ReportArgs
	Format   FormatChoice   `elicit:"format,message=Which format should the report be in?,prefill"`
	Salaries SalariesChoice `elicit:"salaries,message=The report found salary data. Include the salaries section?,during"`
}
