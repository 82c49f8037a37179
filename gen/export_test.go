package gen

// The phases, for the external tests that run them one at a time.
var (
	Load     = loadPackages
	Check    = checkPackages
	Emit     = emit
	Run      = run
	StubFile = stubFile
)

type Output = output
