package gen

// Config says what to generate for.
type Config struct {
	// Dir is the directory patterns are resolved in and diagnostics are made
	// relative to. Empty means the current directory.
	Dir string
	// Patterns are go/packages patterns; empty means ".".
	Patterns []string
	// BuildFlags are passed to the go command (for example "-tags=foo").
	BuildFlags []string
	// Env, when set, is the environment of the go command.
	Env []string
}
