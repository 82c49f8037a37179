package runtime

import "github.com/elicitgen/elicitgen/internal/seal"

// Temporary re-exports while the runtime moves into its rooms (issue 25).

const DefaultStateTTL = seal.DefaultStateTTL
