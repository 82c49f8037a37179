package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// TestWorkspaceListsEveryModule: every go.mod of the repository (outside
// testdata) is a module of go.work, so that the README's test command,
// which names the workspace's modules, runs every test (docs/design/modules.md).
func TestWorkspaceListsEveryModule(t *testing.T) {
	root := testmod.Root(t)
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	work, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, u := range work.Use {
		used[filepath.Clean(u.Path)] = true
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		found++
		if !used[rel] {
			t.Errorf("%s/go.mod is not in go.work: the README's test command would not run its tests", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != len(used) || found < 6 {
		t.Errorf("go.work uses %d modules, the tree has %d go.mod files", len(used), found)
	}
}

// TestRootRequiresNoNewerThanSDK: the root module, which every server
// requires, asks for no newer version of a module the go-sdk requires than
// the go-sdk does, so that it raises nothing in a user's build.
func TestRootRequiresNoNewerThanSDK(t *testing.T) {
	root := testmod.Root(t)
	mod := readMod(t, filepath.Join(root, "go.mod"))
	var sdkVersion string
	for _, r := range mod.Require {
		if r.Mod.Path == "github.com/modelcontextprotocol/go-sdk" {
			sdkVersion = r.Mod.Version
		}
	}
	if sdkVersion == "" {
		t.Fatal("go.mod does not require the go-sdk")
	}
	cmd := exec.Command("go", "mod", "download", "-json", "github.com/modelcontextprotocol/go-sdk@"+sdkVersion)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v", err)
	}
	gomod := between(string(out), `"GoMod": "`, `"`)
	sdk := readMod(t, gomod)
	wants := map[string]string{}
	for _, r := range sdk.Require {
		wants[r.Mod.Path] = r.Mod.Version
	}
	checked := 0
	for _, r := range mod.Require {
		want, shared := wants[r.Mod.Path]
		if !shared {
			continue
		}
		checked++
		if semver.Compare(r.Mod.Version, want) > 0 {
			t.Errorf("go.mod requires %s %s; the go-sdk %s requires %s", r.Mod.Path, r.Mod.Version, sdkVersion, want)
		}
	}
	if checked < 4 {
		t.Errorf("only %d of the go-sdk's requirements are the root's too", checked)
	}
}

func readMod(t *testing.T, path string) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// between returns what s holds between the first start and the next end.
func between(s, start, end string) string {
	_, rest, _ := strings.Cut(s, start)
	v, _, _ := strings.Cut(rest, end)
	return v
}

// TestRaceSkipsRunPlainly: a test or benchmark that skips itself under
// the race detector (it reads raceEnabled) is one that .ci/test's plain
// run of its package (one line, of every such package) names, so that it
// runs once; the other tests of the server packages run under -race only.
func TestRaceSkipsRunPlainly(t *testing.T) {
	root := testmod.Root(t)
	script, err := os.ReadFile(filepath.Join(root, ".ci", "test"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go test -run '([^']+)' -bench '([^']+)' -benchtime 1x "\$@" ((?:\./\S+ )+)\|\| status=1$`).FindSubmatch(script)
	if m == nil {
		t.Fatal(`.ci/test has no line go test -run 'PATTERN' -bench 'PATTERN' -benchtime 1x "$@" ./PKG... || status=1`)
	}
	tests, benchmarks, pkgs := regexp.MustCompile(string(m[1])), regexp.MustCompile(string(m[2])), strings.Fields(string(m[3]))
	found := 0
	for path, names := range raceSkippers(t, root) {
		for _, name := range names {
			found++
			pattern := tests
			if strings.HasPrefix(name, "Benchmark") {
				pattern = benchmarks
			}
			if !slices.Contains(pkgs, "./"+filepath.ToSlash(filepath.Dir(path))) || !pattern.MatchString(name) {
				t.Errorf("%s: %s skips under -race and .ci/test's plain run of %s does not run it", path, name, strings.Join(pkgs, " "))
			}
		}
	}
	if found == 0 {
		t.Fatal("no test reads raceEnabled: drop .ci/test's plain run of it")
	}
}

// raceSkippers lists, by test file relative to root, the Test and
// Benchmark functions that read raceEnabled.
func raceSkippers(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && (strings.HasPrefix(fd.Name.Name, "Test") || strings.HasPrefix(fd.Name.Name, "Benchmark")) && reads(fd, "raceEnabled") {
				out[rel] = append(out[rel], fd.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reads reports whether fd's body names ident.
func reads(fd *ast.FuncDecl, ident string) bool {
	found := false
	ast.Inspect(fd, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == ident {
			found = true
		}
		return !found
	})
	return found
}
