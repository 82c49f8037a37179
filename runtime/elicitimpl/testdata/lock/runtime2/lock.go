// Package runtime2 holds the version lock as elicitgen wrote it for code
// of version 2, which imported package runtime for everything.
package runtime2

import elicitrt "github.com/elicitgen/elicitgen/runtime"

// The build fails on the next lines when this file and the elicitgen runtime
// come from different versions of elicitgen: run the elicitgen of the same
// module version as the runtime, then go generate.
const (
	_ = elicitrt.EnforceVersion(2 - elicitrt.MinVersion)
	_ = elicitrt.EnforceVersion(elicitrt.MaxVersion - 2)
)
