// Package golangcilint is elicitgen's analyzer, vet.Analyzer, as a
// golangci-lint module plugin: importing it registers the plugin
// "elicitgen" with github.com/golangci/plugin-module-register, which a
// golangci-lint built by golangci-lint custom looks up by the name given
// in its configuration.
//
// Build that golangci-lint with a .custom-gcl.yml naming this package as
// the plugin's import (module github.com/elicitgen/elicitgen, with path: a
// local checkout until a release exists, version: a release after):
//
//	version: v2.15.0
//	plugins:
//	  - module: github.com/elicitgen/elicitgen
//	    import: github.com/elicitgen/elicitgen/vet/golangcilint
//	    path: ../elicitgen
//
// and enable the linter in .golangci.yml as a custom linter of type module:
//
//	version: "2"
//	linters:
//	  enable:
//	    - elicitgen
//	  settings:
//	    custom:
//	      elicitgen:
//	        type: module
//	        description: elicitgen's declarations and generated files
//
// The analyzer reads types (it runs elicitgen's Check), so the plugin asks
// for register.LoadModeTypesInfo. It takes no settings: New fails on any
// (a misspelt or imagined option is an error, not silently ignored).
// docs/reference/vet.md says what is tested, and how.
package golangcilint

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/elicitgen/elicitgen/vet"
)

// Name is the plugin's name: the key of the linter in .golangci.yml
// (linters.enable and linters.settings.custom).
const Name = "elicitgen"

func init() { register.Plugin(Name, New) }

// New is the plugin for golangci-lint's settings of the linter
// (linters.settings.custom.elicitgen.settings): there are none, so New
// accepts only no settings, or an empty map, and fails on anything else.
func New(settings any) (register.LinterPlugin, error) {
	if err := noSettings(settings); err != nil {
		return nil, err
	}
	return plugin{}, nil
}

// noSettings is nil when settings are absent or empty, else an error
// naming what was given.
func noSettings(settings any) error {
	if settings == nil {
		return nil
	}
	v := reflect.ValueOf(settings)
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.String:
		if v.Len() == 0 {
			return nil
		}
	}
	given := fmt.Sprint(settings)
	if v.Kind() == reflect.Map {
		var keys []string
		for _, k := range v.MapKeys() {
			keys = append(keys, fmt.Sprint(k.Interface()))
		}
		slices.Sort(keys)
		given = strings.Join(keys, ", ")
	}
	return fmt.Errorf("the %s linter takes no settings, but linters.settings.custom.%s.settings has %s: remove them (see %s)",
		Name, Name, given, vet.Analyzer.URL)
}

// plugin is the linter: elicitgen's analyzer, on type-checked packages.
type plugin struct{}

// BuildAnalyzers is vet.Analyzer.
func (plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{vet.Analyzer}, nil
}

// GetLoadMode is types: the analyzer runs elicitgen's Check, which reads
// the package's types.
func (plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
