package transport_test

import (
	"os"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
)

// TestMain removes the deploy command that process tests build.
func TestMain(m *testing.M) { os.Exit(procserver.Main(m)) }
