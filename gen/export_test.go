package gen

// The phases, for the external tests that run them one at a time.
var (
	Load     = loadPackages
	Check    = checkPackages
	Emit     = emit
	Run      = run
	StubFile = stubFile
	// StubTestFile is the test stub --test writes, or nil and why not.
	StubTestFile = func(p *pkgModel, t *toolModel) ([]byte, error) {
		if err := testable(t); err != nil {
			return nil, nil
		}
		return stubTestFile(p, t)
	}
)

type Output = output

type (
	PkgModel  = pkgModel
	ToolModel = toolModel
)
