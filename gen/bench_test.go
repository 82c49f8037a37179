package gen

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// The size of the generator benchmark's package: a realistic one.
const (
	syntheticForms = 50
	syntheticTools = 10
)

// writeSynthetic lays out a throwaway module in dir with one package of n
// form structs of eight properties each (strings with bounds and formats,
// integers, an optional pointer, titled and untitled enums, a
// multi-select, a date, booleans), in files of 50 forms, and tools tools
// of three steps each (a prefilled form, a form with a handler's message
// and ask, a URL step).
func writeSynthetic(tb testing.TB, dir string, n, tools int) {
	tb.Helper()
	testmod.New(tb, dir, "example.com/synthetic")
	files := map[string]string{"enums.go": `package synthetic

// Level is a titled enum.
type Level string

const (
	Low  Level = "low"  //elicit:title Low
	Mid  Level = "mid"  //elicit:title Medium
	High Level = "high" //elicit:title High
)

// Tag is an untitled enum.
type Tag string

const (
	Red   Tag = "red"
	Green Tag = "green"
	Blue  Tag = "blue"
)
`}
	for f := 0; f*50 < n; f++ {
		var b strings.Builder
		b.WriteString("package synthetic\n\nimport \"time\"\n")
		for i := f * 50; i < n && i < (f+1)*50; i++ {
			fmt.Fprintf(&b, `
// Form%[1]d is synthetic form number %[1]d.
type Form%[1]d struct {
	// The name to use.
	Name  string    `+"`elicit:\"name,required,min=1,max=40\"`"+`
	Count int       `+"`elicit:\"count,min=0,max=%[1]d\"`"+`
	Ratio *float64  `+"`elicit:\"ratio,min=0\"`"+`
	Level Level     `+"`elicit:\"level,default=low,title=Level\"`"+`
	Tags  []Tag     `+"`elicit:\"tags,max=2\"`"+`
	Email string    `+"`elicit:\"email,format=email\"`"+`
	When  time.Time `+"`elicit:\"when,format=date\"`"+`
	// Agree to the terms.
	Agree bool `+"`elicit:\"agree,default=false\"`"+`
}
`, i)
		}
		files[fmt.Sprintf("forms%02d.go", f)] = b.String()
	}
	var b strings.Builder
	b.WriteString("package synthetic\n\nimport elicitrt \"github.com/elicitgen/elicitgen/runtime\"\n")
	for i := range tools {
		fmt.Fprintf(&b, `
// Args%[1]d are the arguments of tool %[1]d.
type Args%[1]d struct {
	Item string `+"`json:\"item\"`"+`
}

// Tool%[1]d is synthetic tool number %[1]d.
//
//elicit:tool tool%[1]d
type Tool%[1]d struct {
	Args    Args%[1]d
	First   Form%[2]d            `+"`elicit:\"first,message=First?,prefill,fallback=arguments\"`"+`
	Second  Form%[3]d            `+"`elicit:\"second,message=handler,ask=handler,fallback=handler\"`"+`
	Connect elicitrt.URLStep `+"`elicit:\"connect,message=Connect your account.\"`"+`
}
`, i, (2*i)%n, (2*i+1)%n)
	}
	files["tools.go"] = b.String()
	testmod.WriteFiles(tb, dir, files)
}

// BenchmarkGenerate measures elicitgen on a package of 50 forms and 10
// tools against a bare packages.Load of the same package with the same
// load mode:
//
//	fresh/    no generated file yet: elicitgen loads, checks, emits and
//	          writes them (they are removed again, off the clock, after
//	          each run)
//	current/  the generated files present and current, as in go generate
//	          and CI's --check: elicitgen loads (now with the generated
//	          files), checks, emits, compares and writes nothing
//
// and in each
//
//	Generate-GOGC100  Generate, as the command runs it (at the default
//	                  GOGC=100; bench/ratios reads this name)
//	packages.Load     the baseline
//
// Each run starts, as a run of the command does, with a collected heap:
// runtime.GC off the clock before it, on every side.
func BenchmarkGenerate(b *testing.B) {
	root := b.TempDir()
	fresh, current := filepath.Join(root, "fresh"), filepath.Join(root, "current")
	writeSynthetic(b, fresh, syntheticForms, syntheticTools)
	writeSynthetic(b, current, syntheticForms, syntheticTools)
	env := append(os.Environ(), "GOFLAGS=-mod=mod")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	generate := func(b *testing.B, dir string) *Result {
		res, err := Generate(Config{Dir: dir, Env: env}, false)
		if err != nil || len(res.Diagnostics) > 0 {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
		return res
	}
	load := func(b *testing.B, dir string) {
		pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: dir, Env: env, Fset: token.NewFileSet()}, ".")
		if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
			b.Fatalf("%v %v", err, pkgs)
		}
	}
	generate(b, current)
	load(b, fresh) // warm the go command's caches for both
	collect := func(b *testing.B) {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
	}
	b.Run("fresh/Generate-GOGC100", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			collect(b)
			res := generate(b, fresh)
			b.StopTimer()
			for _, c := range res.Changes {
				if err := os.Remove(c.Path); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
	})
	b.Run("fresh/packages.Load", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			collect(b)
			load(b, fresh)
		}
	})
	b.Run("current/Generate-GOGC100", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			collect(b)
			if res := generate(b, current); len(res.Changes) != 0 {
				b.Fatalf("changes %v", res.Changes)
			}
		}
	})
	b.Run("current/packages.Load", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			collect(b)
			load(b, current)
		}
	})
}
