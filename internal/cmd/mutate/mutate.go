// Command mutate checks that the tests of each guarantee fail when the
// guarantee breaks. Each file of .ci/mutations describes one mutant: the
// guarantee it breaks, the function it changes (by name, so that it
// survives code moving inside the package), an exact snippet of that
// function and its replacement, and the tests that must fail. mutate
// puts every mutant in one go test -overlay (the module is not copied;
// each mutated function calls its mutant's copy when ELICITGEN_MUTANT
// names it, schemata.go), builds each named package's test binary once,
// runs each named test alone with each mutant selected in turn,
// and exits 1 when a mutant no longer applies, does not build, or a named
// test passes on it. It prints the table (guarantee, mutant, killed by).
//
//	go run ./internal/cmd/mutate             # run every mutant
//	go run ./internal/cmd/mutate -run 's0[48]' # only mutants whose file name matches
//	go run ./internal/cmd/mutate -write      # also write docs/results/mutations.md
//	go run ./internal/cmd/mutate -p 1        # one mutant at a time (default: one per CPU)
//	go run ./internal/cmd/mutate -one        # each mutant in builds of its own (slower; see schemata.go)
//
// Format of a mutation (.ci/mutations/NAME.txt): a header of key: value
// lines, then one or more edits, each an exact snippet of a named function
// (Name, T.Name or (*T).Name, in the package's non-test files) and its
// replacement:
//
//	guarantee: security: asked, once
//	mutant: the replay guard says yes to every claim
//	test: ./runtime TestMemoryReplayGuardOnce
//	test: ./internal/machine TestConfirmationIsAskedOnce
//	-- find ./runtime (*MemoryReplayGuard).Claim --
//	return false, nil
//	-- replace --
//	return true, nil
//
// A section's text is exact, without its last newline, and the snippet
// must appear exactly once in the function.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Mutation is one mutant, read from a file of .ci/mutations.
type Mutation struct {
	File      string // base name of its file
	Guarantee string
	Mutant    string
	Tests     []Test // in the order given
	Edits     []Edit
}

// Edit replaces the snippet Find, in function Func of package Pkg, by
// Replace.
type Edit struct {
	Pkg     string // ./dir
	Func    string // Name, T.Name or (*T).Name
	Find    string
	Replace string
}

// Test is a test (or fuzz target, run on its seeds) that must fail.
type Test struct{ Pkg, Name string }

// Parse reads a mutation description.
func Parse(name string, src []byte) (*Mutation, error) {
	m := &Mutation{File: name}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	n := 0
	for ; n < len(lines) && !strings.HasPrefix(lines[n], "-- "); n++ {
		line := strings.TrimSpace(lines[n])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		if !ok || val == "" {
			return nil, fmt.Errorf("%s:%d: want key: value", name, n+1)
		}
		switch key {
		case "guarantee":
			m.Guarantee = val
		case "mutant":
			m.Mutant = val
		case "test":
			f := strings.Fields(val)
			if len(f) < 2 {
				return nil, fmt.Errorf("%s:%d: want test: ./pkg TestA [TestB...]", name, n+1)
			}
			for _, t := range f[1:] {
				m.Tests = append(m.Tests, Test{f[0], t})
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q", name, n+1, key)
		}
	}
	// The edits: a "-- find ./pkg Func --" line, the snippet, a
	// "-- replace --" line, the replacement.
	var e *Edit
	var text []string
	flush := func(into *string) { *into = strings.TrimSuffix(strings.Join(text, "\n"), "\n"); text = nil }
	for ; n < len(lines); n++ {
		line := lines[n]
		switch {
		case strings.HasPrefix(line, "-- find ") && strings.HasSuffix(line, " --"):
			if e != nil {
				flush(&e.Replace)
				m.Edits = append(m.Edits, *e)
			}
			f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "-- find "), " --"))
			if len(f) != 2 {
				return nil, fmt.Errorf("%s:%d: want -- find ./pkg Func --", name, n+1)
			}
			e, text = &Edit{Pkg: f[0], Func: f[1], Find: "\x00"}, nil
		case line == "-- replace --" && e != nil && e.Find == "\x00":
			flush(&e.Find)
		default:
			if e == nil {
				return nil, fmt.Errorf("%s:%d: want -- find ./pkg Func --", name, n+1)
			}
			text = append(text, line)
		}
	}
	if e != nil {
		flush(&e.Replace)
		m.Edits = append(m.Edits, *e)
	}
	if m.Guarantee == "" || m.Mutant == "" || len(m.Edits) == 0 || len(m.Tests) == 0 {
		return nil, fmt.Errorf("%s: guarantee, mutant, an edit and a test are required", name)
	}
	pkgs := pkgsOf(m.Tests)
	for _, e := range m.Edits {
		if e.Find == "\x00" || e.Find == "" || e.Find == e.Replace {
			return nil, fmt.Errorf("%s: edit of %s: no -- replace --, an empty snippet or a replacement equal to it", name, e.Func)
		}
		pkgs = append(pkgs, e.Pkg)
	}
	for _, p := range pkgs {
		if !strings.HasPrefix(p, "./") {
			return nil, fmt.Errorf("%s: package %q: want a ./relative directory", name, p)
		}
	}
	return m, nil
}

// pkgsOf lists the packages of tests, each once, in order.
func pkgsOf(tests []Test) []string {
	var pkgs []string
	for _, t := range tests {
		if !slices.Contains(pkgs, t.Pkg) {
			pkgs = append(pkgs, t.Pkg)
		}
	}
	return pkgs
}

// Load reads every mutation of dir, in file name order.
func Load(dir string) ([]*Mutation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var ms []*Mutation
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		m, err := Parse(filepath.Base(f), src)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no mutations in %s", dir)
	}
	return ms, nil
}

// Apply applies m's edits to the files under root and returns the
// mutated content of each file it changes. Its error says to update the
// mutation when a function or a snippet is gone, or a snippet is not
// unique in its function.
func Apply(root string, m *Mutation) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, e := range m.Edits {
		if err := apply(root, m.File, e, files); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// apply makes edit e in the file of its function, read from files when
// an earlier edit changed it.
func apply(root, name string, e Edit, files map[string][]byte) error {
	path, src, start, end, err := locateFunc(root, e, files)
	if err != nil {
		return fmt.Errorf("%s no longer applies: %w; update the mutation to the code", name, err)
	}
	body := string(src[start:end])
	switch n := strings.Count(body, e.Find); n {
	case 1:
		at := start + strings.Index(body, e.Find)
		files[path] = slices.Concat(src[:at], []byte(e.Replace), src[at+len(e.Find):])
		return nil
	case 0:
		return fmt.Errorf("%s no longer applies: its snippet is not in func %s of %s (%s); update the mutation to the code", name, e.Func, e.Pkg, filepath.Base(path))
	default:
		return fmt.Errorf("%s: its snippet appears %d times in func %s of %s; lengthen it so that it names one place", name, n, e.Func, e.Pkg)
	}
}

// locateFunc finds e's function among the non-test files of its package
// (as files has them, else as on disk) and returns its file, that file's
// source and the function's offsets in it.
func locateFunc(root string, e Edit, files map[string][]byte) (path string, src []byte, start, end int, err error) {
	paths, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(e.Pkg), "*.go"))
	if err != nil {
		return "", nil, 0, 0, err
	}
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, ok := files[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return "", nil, 0, 0, err
			}
		}
		file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return "", nil, 0, 0, err
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && funcName(fd) == e.Func {
				return path, src, fset.Position(fd.Pos()).Offset, fset.Position(fd.End()).Offset, nil
			}
		}
	}
	return "", nil, 0, 0, fmt.Errorf("no func %s in %s", e.Func, e.Pkg)
}

// funcName is Name, T.Name or (*T).Name.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star := false
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = true, s.X
	}
	switch t := typ.(type) {
	case *ast.IndexExpr:
		typ = t.X
	case *ast.IndexListExpr:
		typ = t.X
	}
	id, _ := typ.(*ast.Ident)
	if id == nil {
		return fd.Name.Name
	}
	if star {
		return "(*" + id.Name + ")." + fd.Name.Name
	}
	return id.Name + "." + fd.Name.Name
}

// Result is what running a mutant gave.
type Result struct {
	M        *Mutation
	KilledBy []string // tests that failed, as named
	Survived []string // named tests that passed
	Err      error    // did not apply or did not build
}

// Run applies m in an overlay, builds each named package's tests with it
// and runs each named test alone in its package's directory.
func Run(root, scratch string, m *Mutation, timeout time.Duration) Result {
	r := Result{M: m}
	files, err := Apply(root, m)
	if err != nil {
		r.Err = err
		return r
	}
	dir, err := os.MkdirTemp(scratch, strings.TrimSuffix(m.File, ".txt")+"-")
	if err != nil {
		r.Err = err
		return r
	}
	defer os.RemoveAll(dir)
	overlay, err := writeOverlay(dir, files)
	if err != nil {
		r.Err = err
		return r
	}
	for i, pkg := range pkgsOf(m.Tests) {
		bin := filepath.Join(dir, fmt.Sprintf("test%d", i))
		if out, err := buildTest(root, overlay, bin, pkg); err != nil {
			r.Err = fmt.Errorf("%s: the mutant does not build (%s); update the replacement:\n%s", m.File, pkg, out)
			return r
		}
		for _, t := range m.Tests {
			if t.Pkg == pkg && !judge(&r, pkg, t, runTest(root, overlay, bin, t, timeout)) {
				return r
			}
		}
	}
	return r
}

// writeOverlay writes files into dir and the overlay that puts them in
// place, and returns the overlay's path.
func writeOverlay(dir string, files map[string][]byte) (string, error) {
	replace := map[string]string{}
	for path, src := range files {
		copied := filepath.Join(dir, fmt.Sprintf("%d-%s", len(replace), filepath.Base(path)))
		if err := os.WriteFile(copied, src, 0o644); err != nil {
			return "", err
		}
		replace[path] = copied
	}
	overlay := filepath.Join(dir, "overlay.json")
	js, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
	return overlay, os.WriteFile(overlay, js, 0o644)
}

// buildTest builds pkg's test binary as bin with overlay.
func buildTest(root, overlay, bin, pkg string) ([]byte, error) {
	build := exec.Command("go", "test", "-vet=off", "-overlay", overlay, "-c", "-o", bin, pkg)
	build.Dir = root
	return build.CombinedOutput()
}

// slowTest is how long a test may take before its run is logged.
const slowTest = 5 * time.Second

// testRun is what running one named test alone gave.
type testRun struct {
	out []byte
	err error
}

// runTest runs test t alone from binary bin, in its package's directory,
// with env added to the environment.
func runTest(root, overlay, bin string, t Test, timeout time.Duration, env ...string) testRun {
	cmd := exec.Command(bin, "-test.run", "^"+regexp.QuoteMeta(t.Name)+"$", "-test.count=1", "-test.timeout="+timeout.String())
	cmd.Dir = filepath.Join(root, filepath.FromSlash(t.Pkg))
	// Tests that build a binary of their package (go build in
	// TestMain) build the mutant too.
	cmd.Env = append(os.Environ(), strings.TrimSpace("GOFLAGS="+os.Getenv("GOFLAGS")+" -overlay="+overlay))
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if took := time.Since(start); took > slowTest {
		fmt.Fprintf(os.Stderr, "mutate: %s %s %s took %s (a test that fails should fail fast)\n", strings.Join(env[:min(len(env), 1)], ""), t.Pkg, t.Name, took.Round(time.Second/10))
	}
	return testRun{out, err}
}

// judge records what test t of package pkg gave in r, and reports
// whether the mutant's other tests are worth running.
func judge(r *Result, pkg string, t Test, run testRun) bool {
	// The test runs alone: when the binary fails, the test failed,
	// reporting it or crashing the process (a panic in a goroutine of
	// the server, a timeout).
	switch {
	case run.err != nil && bytes.Contains(run.out, []byte("--- FAIL: "+t.Name+" ")):
		r.KilledBy = append(r.KilledBy, t.Name)
	case run.err != nil:
		r.KilledBy = append(r.KilledBy, t.Name+" (crashed)")
	case bytes.Contains(run.out, []byte("testing: warning: no tests to run")):
		r.Err = fmt.Errorf("%s: %s has no test %s; update the mutation", r.M.File, pkg, t.Name)
		return false
	default:
		r.Survived = append(r.Survived, t.Name)
	}
	return true
}

// Table is docs/results/mutations.md for ms: each mutant, the tests its file names
// (every one must fail, so a green run makes them the killers).
func Table(ms []*Mutation) string {
	var b strings.Builder
	b.WriteString("# Mutations\n\n")
	b.WriteString("Generated by `go run ./internal/cmd/mutate -write` from [`.ci/mutations`](../../.ci/mutations); do not edit.\n")
	b.WriteString("Generated, not measured: current at every commit, since `TestTableIsCurrent` fails when\n")
	b.WriteString("it differs from the mutant files, and `.ci/run` kills every mutant at every commit CI runs.\n")
	b.WriteString("Each row is a small change to the code that breaks a guarantee of the page it names\n")
	b.WriteString("(a `security` row: [security/guarantees.md](../security/guarantees.md)); `.ci/run` builds each named test package\n")
	b.WriteString("once with every mutant in it (`go test -overlay`; each mutated function calls its mutant's\n")
	b.WriteString("copy when `ELICITGEN_MUTANT` names it, [schemata.go](../../internal/cmd/mutate/schemata.go)), runs\n")
	b.WriteString("the named tests with each mutant selected in turn, and fails unless every test named in the\n")
	b.WriteString("row fails on its mutant.\n\n")
	fmt.Fprintf(&b, "%d mutants.\n\n", len(ms))
	b.WriteString("| guarantee | mutant | changed | killed by |\n|---|---|---|---|\n")
	for _, m := range ms {
		var tests []string
		for _, p := range pkgsOf(m.Tests) {
			var names []string
			for _, t := range m.Tests {
				if t.Pkg == p {
					names = append(names, "`"+t.Name+"`")
				}
			}
			tests = append(tests, strings.TrimPrefix(p, "./")+": "+strings.Join(names, ", "))
		}
		var changed []string
		for _, e := range m.Edits {
			changed = append(changed, "`"+e.Func+"` in "+strings.TrimPrefix(e.Pkg, "./"))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(m.Guarantee), cell(m.Mutant), strings.Join(changed, ", "), strings.Join(tests, "; "))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func main() {
	write := flag.Bool("write", false, "write docs/results/mutations.md")
	only := flag.String("run", "", "run only the mutants whose file name matches this regexp")
	timeout := flag.Duration("timeout", 3*time.Minute, "timeout of each test run")
	parallel := flag.Int("p", runtime.NumCPU(), "mutants run at once")
	one := flag.Bool("one", false, "build each mutant's test binaries for it alone, as before schemata")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fatal(err)
	}
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		fatal(err)
	}
	if *write {
		if err := os.WriteFile(filepath.Join(root, "docs", "results", "mutations.md"), []byte(Table(ms)), 0o644); err != nil {
			fatal(err)
		}
	}
	scratch, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(scratch)
	match, err := regexp.Compile(*only)
	if err != nil {
		fatal(err)
	}
	var run []*Mutation
	for _, m := range ms {
		if match.MatchString(m.File) {
			run = append(run, m)
		}
	}
	// Every mutant is in one build of each test package (schemata.go),
	// or, with -one, builds its own; the table is printed in file order
	// at the end.
	start := time.Now()
	took := make([]time.Duration, len(run))
	done := func(i int, d time.Duration) {
		took[i] = d
		fmt.Fprintf(os.Stderr, "mutate: %s done in %s\n", run[i].File, d.Round(time.Second))
	}
	var results []Result
	if *one {
		results = make([]Result, len(run))
		each(len(run), *parallel, func(i int) {
			t0 := time.Now()
			results[i] = Run(root, scratch, run[i], *timeout)
			done(i, time.Since(t0))
		})
	} else {
		results = RunAll(root, scratch, run, *timeout, *parallel, done)
	}
	failed := 0
	fmt.Printf("%-40s | %-60s | %s\n", "guarantee", "mutant", "killed by")
	for i, r := range results {
		killed := strings.Join(r.KilledBy, ", ")
		switch {
		case r.Err != nil:
			failed++
			killed = "ERROR"
		case len(r.KilledBy) == 0:
			failed++
			killed = "SURVIVED"
		case len(r.Survived) > 0:
			failed++
			killed += "; PASSED: " + strings.Join(r.Survived, ", ")
		}
		fmt.Printf("%-40s | %-60s | %s (%s)\n", r.M.Guarantee, r.M.Mutant, killed, took[i].Round(time.Second))
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintln(os.Stderr, r.Err)
		}
	}
	fmt.Printf("%d mutants, %d not killed by every named test, in %s\n", len(run), failed, time.Since(start).Round(time.Second))
	if failed > 0 {
		os.Exit(1)
	}
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not in a module")
	}
	return filepath.Dir(gomod), nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}
