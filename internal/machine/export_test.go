package machine

import "github.com/elicitgen/elicitgen/internal/refuse"

// SetRefusalClock sets the clock of m's refusal log, for a test that
// closes its windows.
func SetRefusalClock(m *Machine, c refuse.Clock) { m.refusals.Clock = c }
