package repocheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// rootModule is the root module's path: its internal/ packages are for it
// alone.
const rootModule = "github.com/elicitgen/elicitgen"

// internalInTests are the root's internal/ packages that the test files
// of another module still import, module by module (its directory): the
// conversations move to the public kit, runtime/elicittest, and the
// guarantees' tests beside the code they prove, after which a module's
// entry goes. The table only shrinks: an entry no test file imports any
// more fails, so that it is deleted. It is empty: no module but the root
// imports internal/, its tests included. Non-test files have no entry: no
// module but the root imports internal/ in what it builds, so that an
// adapter or an example a user copies builds in their module.
var internalInTests = map[string][]string{}

// TestNoInternalOutsideRoot: no file of a module other than the root
// imports the root's internal/ packages (the go command refuses it only
// once the modules are apart, in a user's build); test files only as
// internalInTests allows. runtime/redisstore, an adapter, imports none,
// its tests included: it stands on the public API (elicitrt.Keyring's
// SealRecord and OpenRecord for its sealed records).
func TestNoInternalOutsideRoot(t *testing.T) {
	root := repoRoot(t)
	mods := nestedModules(t, root)
	if len(mods) < 6 {
		t.Fatalf("found %d nested modules (%v): the repository has six", len(mods), mods)
	}
	used := map[string]map[string]bool{}
	for _, f := range goFiles(t, root) {
		mod := moduleOf(f, mods)
		if mod == "" {
			continue // the root module
		}
		for _, imp := range internalImports(t, filepath.Join(root, f)) {
			test := strings.HasSuffix(f, "_test.go")
			if !test || !slices.Contains(internalInTests[mod], imp) {
				t.Errorf("%s (module %s) imports %s/%s: only the root module imports internal/; use the public API (runtime, runtime/backend, runtime/elicittest)", f, mod, rootModule, imp)
				continue
			}
			if used[mod] == nil {
				used[mod] = map[string]bool{}
			}
			used[mod][imp] = true
		}
	}
	for mod, imps := range internalInTests {
		for _, imp := range imps {
			if !used[mod][imp] {
				t.Errorf("internalInTests lets the tests of %s import %s, which none does any more: delete it from the table", mod, imp)
			}
		}
	}
}

// TestSignInLinksNoInterpreter: the sign-in pages link the sealed flows
// and the stores, not the interpreter of step tables.
func TestSignInLinksNoInterpreter(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("go", "list", "-C", root, "-deps", "./runtime/signin").Output()
	if err != nil {
		t.Fatalf("go list -deps ./runtime/signin: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, rootModule+"/internal/seal") {
		t.Fatalf("go list -deps ./runtime/signin lists no internal/seal: %v", deps)
	}
	for _, banned := range []string{"internal/machine", "internal/transport", "internal/tasks"} {
		if slices.Contains(deps, rootModule+"/"+banned) {
			t.Errorf("runtime/signin links %s: the sign-in pages need no interpreter", banned)
		}
	}
}

// nestedModules are the directories, relative to root and slash-separated,
// of every go.mod but the root's (testdata aside).
func nestedModules(t *testing.T, root string) []string {
	t.Helper()
	var mods []string
	for _, f := range walk(t, root, "go.mod") {
		if dir := filepath.ToSlash(filepath.Dir(f)); dir != "." {
			mods = append(mods, dir)
		}
	}
	return mods
}

// goFiles are the .go files under root (testdata aside), relative to it.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	return walk(t, root, ".go")
}

// walk lists the files under root whose name ends with suffix, skipping
// testdata, hidden directories and node_modules, relative to root.
func walk(t *testing.T, root, suffix string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, suffix) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// moduleOf is the innermost nested module holding file, "" for the root.
func moduleOf(file string, mods []string) string {
	best := ""
	for _, m := range mods {
		if strings.HasPrefix(file, m+"/") && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// internalImports are the root's internal/ packages path imports, as
// "internal/...", sorted.
func internalImports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var imps []string
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			t.Fatalf("%s: import %s: %v", path, spec.Path.Value, err)
		}
		if rest, ok := strings.CutPrefix(p, rootModule+"/"); ok && (rest == "internal" || strings.HasPrefix(rest, "internal/")) {
			imps = append(imps, rest)
		}
	}
	sort.Strings(imps)
	return imps
}
