package machine

import (
	"reflect"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/contract"
)

// TestURLStepWhereTheGeneratorLooks: the generator recognizes a URL step's
// field by the package and name of contract, so they are URLStep's.
func TestURLStepWhereTheGeneratorLooks(t *testing.T) {
	typ := reflect.TypeFor[elicitrt.URLStep]()
	if typ.PkgPath() != contract.URLStepPackage || typ.Name() != contract.URLStepType {
		t.Errorf("URLStep is %s.%s, contract says %s.%s", typ.PkgPath(), typ.Name(), contract.URLStepPackage, contract.URLStepType)
	}
}
