package machine_test

import (
	"testing"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/seal"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// TestUserConstantsAgree: the user package states its constants as
// values, for go doc's reader; they are the ones the seal, the contract
// with the generator and the memory task store use.
func TestUserConstantsAgree(t *testing.T) {
	for _, c := range []struct {
		name      string
		user, own any
	}{
		{"DefaultStateTTL", elicitrt.DefaultStateTTL, seal.DefaultStateTTL},
		{"KeySize", elicitrt.KeySize, seal.KeySize},
		{"KeysEnv", elicitrt.KeysEnv, seal.KeysEnv},
		{"DefaultMaxRounds", elicitrt.DefaultMaxRounds, contract.DefaultMaxRounds},
		{"PreviewTokenArgument", elicitrt.PreviewTokenArgument, contract.PreviewTokenArgument},
		{"DefaultMaxRunningTasks, half of backend.DefaultMaxTasks", elicitrt.DefaultMaxRunningTasks * 2, backend.DefaultMaxTasks},
		{"DefaultSessionTimeout, DefaultLegacyAnswerWait", elicitrt.DefaultSessionTimeout, elicitrt.DefaultLegacyAnswerWait},
	} {
		if c.user != c.own {
			t.Errorf("runtime's %s is %v, the runtime's own %v", c.name, c.user, c.own)
		}
	}
}
