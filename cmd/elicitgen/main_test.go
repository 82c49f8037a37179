package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

const formSrc = `package app

// Level is how loud.
type Level string

const (
	Low  Level = "low"
	High Level = "high"
)

// Ask is a form.
type Ask struct {
	Level Level ` + "`elicit:\"level,required\"`" + `
	Count int   ` + "`elicit:\"count,min=1,max=9\"`" + `
}
`

// elicitgen runs the command in dir, in process, and returns its status and
// output streams.
func elicitgen(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func newApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testmod.New(t, dir, "example.com/app")
	testmod.WriteFiles(t, dir, files)
	return dir
}

func TestVersionAndUsage(t *testing.T) {
	dir := t.TempDir()
	if code, out, _ := elicitgen(t, dir, "--version"); code != exitOK || !strings.HasPrefix(out, "elicitgen ") {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, _, errOut := elicitgen(t, dir, "--no-such-flag"); code != exitUsage || !strings.Contains(errOut, "unknown flag") {
		t.Errorf("bad flag: %d %q", code, errOut)
	}
	if code, _, errOut := elicitgen(t, dir, "stub"); code != exitUsage || !strings.Contains(errOut, "elicitgen stub NAME [PACKAGE]") {
		t.Errorf("stub without a name: %d %q", code, errOut)
	}
}

func TestGenerateCheckAndStale(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	out := filepath.Join(dir, "app_elicit.go")

	// --check before generating: missing file, exit 1, nothing written.
	code, stdout, stderr := elicitgen(t, dir, "--check")
	if code != exitDiag || !strings.Contains(stderr, "create app_elicit.go") || !strings.Contains(stdout, "--- /dev/null (app_elicit.go is not on disk)\n+++ b/app_elicit.go (elicitgen)\n") {
		t.Fatalf("check on missing: %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("--check wrote a file")
	}

	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	first, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := elicitgen(t, dir, "--check"); code != exitOK || stdout != "" {
		t.Fatalf("check when current: %d %q", code, stdout)
	}
	// An unchanged file is not rewritten.
	time.Sleep(10 * time.Millisecond)
	elicitgen(t, dir)
	second, _ := os.Stat(out)
	if !second.ModTime().Equal(first.ModTime()) {
		t.Error("unchanged output was rewritten")
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Fatalf("generated code does not build: %v\n%s", err, out)
	}

	// Change the struct without regenerating: the stale check fails the build,
	// and --check reports the difference.
	changed := strings.Replace(formSrc, "Count int ", "Count int64 ", 1)
	testmod.WriteFiles(t, dir, map[string]string{"app.go": changed})
	buildOut, err := testmod.Go(t, dir, "build", "./...")
	if err == nil || !strings.Contains(buildOut, "cannot convert") {
		t.Fatalf("stale struct still builds: %v\n%s", err, buildOut)
	}
	code, stdout, _ = elicitgen(t, dir, "--check")
	if code != exitDiag || !strings.HasPrefix(stdout, "--- a/app_elicit.go (on disk)\n+++ b/app_elicit.go (elicitgen)\n@@ ") ||
		!strings.Contains(stdout, "-\t\tCount int\n") || !strings.Contains(stdout, "+\t\tCount int64\n") {
		t.Fatalf("check on stale: %d\n%s", code, stdout)
	}
	// The verdict comes first, then the diff, on one terminal.
	var both bytes.Buffer
	if code := run([]string{"--check"}, &both, &both); code != exitDiag ||
		!strings.HasPrefix(both.String(), "elicitgen: generated files are not up to date (run elicitgen): update app_elicit.go\n--- a/app_elicit.go (on disk)\n") {
		t.Fatalf("check on stale, one stream: %d\n%s", code, both.String())
	}
	// Regenerating works although the stale generated file does not compile.
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("regenerate: %d %s", code, stderr)
	}
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Fatalf("after regenerate: %v\n%s", err, out)
	}

	// Remove the form: its generated file is stale and removed.
	testmod.WriteFiles(t, dir, map[string]string{"app.go": "package app\n"})
	if code, _, stderr := elicitgen(t, dir, "--check"); code != exitDiag || !strings.Contains(stderr, "remove app_elicit.go") {
		t.Fatalf("check on leftover: %d %s", code, stderr)
	}
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("leftover generated file not removed")
	}
}

func TestDiagnosticsWriteNothing(t *testing.T) {
	src := `package app

type Inner struct{ A int }

type Bad struct {
	Password string ` + "`elicit:\"password\"`" + `
	In       Inner  ` + "`elicit:\"in\"`" + `
}

type Good struct {
	Name string ` + "`elicit:\"name\"`" + `
}
`
	dir := newApp(t, map[string]string{"app.go": src})
	code, stdout, stderr := elicitgen(t, dir, "./...")
	if code != exitDiag || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "app.go:6:2: field Password looks secret") || !strings.HasPrefix(lines[1], "app.go:7:2: field In is a nested struct") {
		t.Fatalf("diagnostics:\n%s", stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_elicit.go") {
			t.Errorf("%s written despite diagnostics", e.Name())
		}
	}
}

// TestOnlyOwnFilesTouched: elicitgen writes over and removes only the
// files it wrote (named *_elicit.go and headed by its generated-code
// line). A hand-written app_elicit.go beside a form's app.go is a
// positioned diagnostic, and kept; so is one the build ignores, which the
// write step refuses (exit 2); another generator's notes_elicit.go and a
// hand-written util_elicit.go, whose sources declare no forms, are kept
// by a run that removes elicitgen's own left-over file.
func TestOnlyOwnFilesTouched(t *testing.T) {
	hand := "package app\n\n// helper is written by hand.\nfunc helper() {}\n"
	other := "// Code generated by othergen. DO NOT EDIT.\n\npackage app\n\nconst fromOther = 1\n"
	dir := newApp(t, map[string]string{"app.go": formSrc, "app_elicit.go": hand,
		"notes.go": "package app\n", "notes_elicit.go": other, "util_elicit.go": "package app\n\nconst util = 2\n"})
	code, stdout, stderr := elicitgen(t, dir)
	if code != exitDiag || stdout != "" || !strings.HasPrefix(stderr, "app_elicit.go:1:1: app_elicit.go is where elicitgen writes the code generated for app.go, and elicitgen did not write it") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	kept := func(name, want string) {
		t.Helper()
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s: %v %q, want it unchanged", name, err, got)
		}
	}
	kept("app_elicit.go", hand)

	// The build ignores it: Check does not see it; the write step refuses.
	ignored := "//go:build never\n\n" + hand
	testmod.WriteFiles(t, dir, map[string]string{"app_elicit.go": ignored})
	if code, _, stderr := elicitgen(t, dir); code != exitUsage || !strings.Contains(stderr, "app_elicit.go was not written by elicitgen") {
		t.Fatalf("ignored hand-written file: exit %d %s", code, stderr)
	}
	kept("app_elicit.go", ignored)

	// Renamed: the form's code is written; then the form goes, and only
	// elicitgen's own file is removed.
	if err := os.Rename(filepath.Join(dir, "app_elicit.go"), filepath.Join(dir, "helper.go")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	testmod.WriteFiles(t, dir, map[string]string{"app.go": "package app\n"})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate without forms: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "app_elicit.go")); !os.IsNotExist(err) {
		t.Errorf("elicitgen's left-over app_elicit.go not removed: %v", err)
	}
	kept("notes_elicit.go", other)
	kept("util_elicit.go", "package app\n\nconst util = 2\n")
}

func TestTypeErrorsAreTheCompilers(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": "package app\n\ntype F struct {\n\tA undefinedType `elicit:\"a\"`\n}\n"})
	code, _, stderr := elicitgen(t, dir)
	if code != exitDiag || strings.TrimSpace(stderr) != "app.go:4:4: undefined: undefinedType" {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
}

func TestStub(t *testing.T) {
	src := formSrc + `
// Args of the ask tool.
type Args struct {
	Topic string ` + "`json:\"topic\"`" + `
}

// AskTool asks for a level.
//
//elicit:tool ask
type AskTool struct {
	Args  Args
	First Ask ` + "`elicit:\"first,message=handler,ask=handler,fallback=handler\"`" + `
}
`
	dir := newApp(t, map[string]string{"app.go": src})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	// As a user does once generated code imports new packages.
	if out, err := testmod.Go(t, dir, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	code, stdout, stderr := elicitgen(t, dir, "stub", "ask")
	if code != exitOK || !strings.HasPrefix(stdout, "wrote ask_handler.go\n") {
		t.Fatalf("stub: %d %q %q", code, stdout, stderr)
	}
	stub, _ := os.ReadFile(filepath.Join(dir, "ask_handler.go"))
	for _, m := range []string{"Complete(", "Declined(", "Cancelled(", "Unavailable(", "FirstMessage(", "AskFirst("} {
		if !strings.Contains(string(stub), ") "+m) {
			t.Errorf("stub lacks %s:\n%s", m, stub)
		}
	}
	// The stub compiles as written, with the generated code.
	testmod.WriteFiles(t, dir, map[string]string{"register.go": "package app\n\nimport \"github.com/modelcontextprotocol/go-sdk/mcp\"\n\nfunc register(s *mcp.Server) { RegisterAskTool(s, askToolHandler{}, nil) }\n"})
	if out, err := testmod.Go(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("stub does not build: %v\n%s", err, out)
	}
	// Never overwrites.
	if code, _, stderr := elicitgen(t, dir, "stub", "ask"); code != exitDiag || !strings.Contains(stderr, "never overwrites") {
		t.Fatalf("second stub: %d %q", code, stderr)
	}
	// An unknown tool: the tools there are, by package.
	if code, _, stderr := elicitgen(t, dir, "stub", "nosuch"); code != exitDiag || !strings.Contains(stderr, `no tool "nosuch" in .: package app (example.com/app) declares ask`) {
		t.Fatalf("unknown tool: %d %q", code, stderr)
	}
}

// TestRegenerateWhenUserCodeIsAhead: user code written against the
// generated API that the next run produces must not block that run, even
// though it does not compile against the files of the previous run.
func TestRegenerateWhenUserCodeIsAhead(t *testing.T) {
	tool := func(message string) string {
		return formSrc + `
type Args struct{}

//elicit:tool ask
type AskTool struct {
	Args  Args
	First Ask ` + "`elicit:\"first,message=" + message + "\"`" + `
}
`
	}
	dir := newApp(t, map[string]string{"app.go": tool("handler")})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	// The message becomes static, so the next run drops FirstMessage from
	// AskToolHandler; the handler is already written without it, which the
	// previous run's interface rejects ("missing method FirstMessage").
	handler := `package app

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type h struct{}

var _ AskToolHandler = h{}

func (h) Complete(context.Context, *mcp.CallToolRequest, Args, AskToolAnswers) (*mcp.CallToolResult, error) {
	return nil, nil
}
func (h) Declined(context.Context, *mcp.CallToolRequest, Args, AskToolAnswers, AskToolStep) (*mcp.CallToolResult, error) {
	return nil, nil
}
func (h) Cancelled(context.Context, *mcp.CallToolRequest, Args, AskToolAnswers, AskToolStep) (*mcp.CallToolResult, error) {
	return nil, nil
}
`
	testmod.WriteFiles(t, dir, map[string]string{"app.go": tool("Which level?"), "handler.go": handler})
	if out, err := testmod.Go(t, dir, "vet", "./..."); err == nil || !strings.Contains(out, "missing method FirstMessage") {
		t.Fatalf("the setup should not compile before regenerating: %v\n%s", err, out)
	}
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("regenerate with user code ahead: %d %s", code, stderr)
	}
	if out, err := testmod.Go(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("after regenerate: %v\n%s", err, out)
	}
}

// TestHelp: --help describes forms, tools and the other declarations, the
// exit statuses and an example, and lists no completion or help command.
func TestHelp(t *testing.T) {
	code, out, _ := elicitgen(t, t.TempDir(), "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{
		`elicit:"NAME,OPTION,..."`, "//elicit:form", "//elicit:title", "//elicit:tool NAME", "//elicit:annotations",
		"elicitrt.URLStep", "fallback=", "//elicit:prompt NAME", "//elicit:resource URI", "docs/guide/declarations.md",
		"Exit status:", "  0  success", "  1  diagnostics", "  2  a usage error",
		"//go:generate go tool elicitgen", "elicitgen --check ./...", "elicitgen stub deploy", "elicitgen stub --test deploy",
		"-q, --quiet", "stub        Write a handler skeleton",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
	for _, noise := range []string{"completion", "help        Help about"} {
		if strings.Contains(out, noise) {
			t.Errorf("--help shows %q:\n%s", noise, out)
		}
	}
	if code, _, errOut := elicitgen(t, t.TempDir(), "completion", "bash"); code == exitOK {
		t.Errorf("completion is a command: %q", errOut)
	}
}

// TestSummaryLine: a successful run prints one line saying what it wrote,
// left unchanged and removed; -q prints nothing; --check prints nothing
// when all is current.
func TestSummaryLine(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc, "other.go": "package app\n\ntype Tell struct {\n\tName string `elicit:\"name\"`\n}\n"})
	for _, step := range []struct {
		args []string
		want string
	}{
		{nil, "elicitgen: 2 files written\n"},
		{nil, "elicitgen: 2 files unchanged\n"},
		{[]string{"-q"}, ""},
		{[]string{"--check"}, ""},
	} {
		if code, stdout, stderr := elicitgen(t, dir, step.args...); code != exitOK || stdout != step.want {
			t.Fatalf("elicitgen %v: exit %d, stdout %q, want %q; stderr %q", step.args, code, stdout, step.want, stderr)
		}
	}
	testmod.WriteFiles(t, dir, map[string]string{"other.go": "package app\n", "app.go": strings.Replace(formSrc, "max=9", "max=8", 1)})
	if code, stdout, stderr := elicitgen(t, dir, "./..."); code != exitOK || stdout != "elicitgen: 1 file written, 1 file removed\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	testmod.WriteFiles(t, dir, map[string]string{"app.go": "package app\n"})
	if code, stdout, _ := elicitgen(t, dir); code != exitOK || stdout != "elicitgen: 1 file removed\n" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if code, stdout, _ := elicitgen(t, dir); code != exitOK || stdout != "elicitgen: no forms or tools, no files (looked in . for struct types tagged elicit:\"...\" or marked //elicit:form, //elicit:tool, //elicit:prompt or //elicit:resource)\n" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
}

// TestStaleTagBuildsOnlyCheckFails holds docs/reference/generated-api.md to what it
// says of a stale file: a tag edited without regenerating still builds (and
// would serve the old schema); only --check reports it.
func TestStaleTagBuildsOnlyCheckFails(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	if code, _, stderr := elicitgen(t, dir, "-q"); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	testmod.WriteFiles(t, dir, map[string]string{"app.go": strings.Replace(formSrc, "max=9", "max=5", 1)})
	if out, err := testmod.Go(t, dir, "build", "./..."); err != nil {
		t.Fatalf("a tag-only edit should still build: %v\n%s", err, out)
	}
	code, stdout, _ := elicitgen(t, dir, "--check")
	if code != exitDiag || !strings.Contains(stdout, `"maximum":5`) {
		t.Fatalf("--check on a tag edit: exit %d\n%s", code, stdout)
	}
}

// TestStubOfAResource: a resource is named by its URI, whose punctuation
// does not reach the file name; the stub compiles.
func TestStubOfAResource(t *testing.T) {
	src := formSrc + `
// Statement is a statement, asking the level first.
//
//elicit:resource statements://{year} text/plain
type Statement struct {
	First Ask ` + "`elicit:\"first,message=Which level?\"`" + `
}
`
	dir := newApp(t, map[string]string{"app.go": src})
	if code, _, stderr := elicitgen(t, dir, "-q"); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	if out, err := testmod.Go(t, dir, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	code, stdout, stderr := elicitgen(t, dir, "stub", "statements://{year}")
	if code != exitOK || !strings.HasPrefix(stdout, "wrote statements_year_handler.go\n") {
		t.Fatalf("stub: %d %q %q", code, stdout, stderr)
	}
	if out, err := testmod.Go(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("resource stub does not build: %v\n%s", err, out)
	}
	// stub --test writes tests of tools only, and nothing else.
	code, stdout, stderr = elicitgen(t, dir, "stub", "--test", "statements://{year}")
	if code != exitDiag || stdout != "" || !strings.Contains(stderr, "statements://{year} is a resource: stub --test writes tests for tools") {
		t.Errorf("stub --test of a resource: %d %q %q", code, stdout, stderr)
	}
}

func TestStubFileName(t *testing.T) {
	for name, want := range map[string]string{
		"deploy":                  "deploy_handler.go",
		"list_invoices":           "list_invoices_handler.go",
		"statements://{year}":     "statements_year_handler.go",
		"file:///etc/motd":        "file_etc_motd_handler.go",
		"docs://{project}/{page}": "docs_project_page_handler.go",
		"://":                     "stub_handler.go",
	} {
		if got := stubFileName(name); got != want {
			t.Errorf("stubFileName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestStubAddsGoGenerate: in a package without a //go:generate line that
// runs elicitgen, stub adds one to the file that declares the tool and
// says so; with one, it adds nothing (issue 29).
func TestStubAddsGoGenerate(t *testing.T) {
	src := formSrc + `
// Args of the ask tool.
type Args struct{}

// AskTool asks for a level.
//
//elicit:tool ask
type AskTool struct {
	Args  Args
	First Ask ` + "`elicit:\"first,message=Which?\"`" + `
}
`
	dir := newApp(t, map[string]string{"app.go": src})
	code, stdout, stderr := elicitgen(t, dir, "stub", "ask")
	if code != exitOK || !strings.Contains(stdout, "added //go:generate go tool elicitgen to app.go") {
		t.Fatalf("stub: %d %q %q", code, stdout, stderr)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "app.go"))
	if !strings.HasPrefix(string(got), "package app\n\n//go:generate go tool elicitgen\n\n// Level is how loud.") {
		t.Fatalf("app.go:\n%s", got)
	}
	os.Remove(filepath.Join(dir, "ask_handler.go"))
	code, stdout, _ = elicitgen(t, dir, "stub", "ask")
	if code != exitOK || strings.TrimSpace(stdout) != "wrote ask_handler.go" {
		t.Fatalf("second stub: %d %q", code, stdout)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "app.go")); string(again) != string(got) {
		t.Fatalf("the line was added twice:\n%s", again)
	}
}

// TestNoPackageIsExit2: a pattern that names no package is no diagnostic
// (exit 1) but another error (exit 2), as the docs say.
// TestGoModNeedsTidy: when go.mod lacks what the package's files import
// (as after the first go generate, whose code imports the MCP SDK), the
// generator, --check and vet say that go.mod needs updating and to run
// go mod tidy, instead of only that no package matches.
func TestGoModNeedsTidy(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	if out, err := testmod.Go(t, dir, "mod", "edit", "-droprequire", "github.com/modelcontextprotocol/go-sdk"); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	const want = "no Go package matches .: go.mod needs updating, as after the first go generate, whose code imports the MCP SDK and the elicitgen runtime: run go mod tidy"
	for _, args := range [][]string{nil, {"--check"}, {"vet"}} {
		if code, _, stderr := elicitgen(t, dir, args...); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("elicitgen %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func TestNoPackageIsExit2(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	code, _, stderr := elicitgen(t, dir, "./nope")
	if code != exitUsage || !strings.Contains(stderr, "no Go package") || !strings.Contains(stderr, "nope") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// stubTestSrc declares a tool of two steps: a form whose fallback is the
// handler's, then a confirmation asked in the same round.
const stubTestSrc = formSrc + `
// Confirmation is a yes.
type Confirmation struct {
	Confirm bool ` + "`elicit:\"confirm,required\"`" + `
}

// Args of the ask tool.
type Args struct {
	Topic string ` + "`json:\"topic\"`" + `
}

// AskTool asks for a level, then for a yes.
//
//elicit:tool ask
type AskTool struct {
	Args  Args
	First Ask          ` + "`elicit:\"first,message=Which level?,fallback=handler\"`" + `
	Sure  Confirmation ` + "`elicit:\"sure,message=Go ahead?,confirm,together\"`" + `
}
`

// stubTestHandler answers every path of the ask tool.
const stubTestHandler = `package app

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

type askToolHandler struct{}

func (askToolHandler) Complete(ctx context.Context, req *mcp.CallToolRequest, args Args, answers AskToolAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Level " + string(answers.First.Level) + " set."), nil
}

func (askToolHandler) Declined(ctx context.Context, req *mcp.CallToolRequest, args Args, answers AskToolAnswers, step AskToolStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("The level stays: you said no."), nil
}

func (askToolHandler) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args Args, answers AskToolAnswers, step AskToolStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("The level stays: you closed the form."), nil
}

func (askToolHandler) Unavailable(ctx context.Context, req *mcp.CallToolRequest, args Args, answers AskToolAnswers, step AskToolStep) (*mcp.CallToolResult, error) {
	return elicitrt.ToolError("ask needs a person to choose the level"), nil
}
`

// TestStubTest: stub --test writes a gofmt-clean test, the same each time,
// that compiles; it fails on every path with the stub's handler and
// passes with a handler that answers them.
func TestStubTest(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": stubTestSrc})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	if out, err := testmod.Go(t, dir, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	if code, _, stderr := elicitgen(t, dir, "stub", "ask"); code != exitOK {
		t.Fatalf("stub: %d %q", code, stderr)
	}
	code, stdout, stderr := elicitgen(t, dir, "stub", "--test", "ask")
	if code != exitOK || stdout != "wrote ask_test.go\n" {
		t.Fatalf("stub --test: %d %q %q", code, stdout, stderr)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "ask_test.go"))
	if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("the test is not gofmt-clean (%v):\n%s", err, src)
	}
	again := filepath.Join(t.TempDir(), "again_test.go")
	if code, _, stderr := elicitgen(t, dir, "stub", "--test", "ask", "-o", again); code != exitOK {
		t.Fatalf("stub --test -o: %d %q", code, stderr)
	}
	if second, _ := os.ReadFile(again); !bytes.Equal(second, src) {
		t.Errorf("a second run wrote another test:\n%s\n---\n%s", src, second)
	}
	if code, _, stderr := elicitgen(t, dir, "stub", "--test", "ask"); code != exitDiag || !strings.Contains(stderr, "ask_test.go exists; stub never overwrites") {
		t.Errorf("second stub --test: %d %q", code, stderr)
	}
	if code, _, stderr := elicitgen(t, dir, "stub", "--test", "nosuch"); code != exitDiag || !strings.Contains(stderr, `no tool "nosuch" in .: package app (example.com/app) declares ask`) {
		t.Errorf("stub --test of an unknown tool: %d %q", code, stderr)
	}

	out, err := testmod.Go(t, dir, "test", "-count=1", ".")
	if err == nil {
		t.Fatalf("the test passes with the stub's handler:\n%s", out)
	}
	for _, path := range []string{"accept", "decline_first", "cancel_first", "decline_sure", "cancel_sure", "confirm_no_sure", "no_one_there"} {
		for _, era := range []string{"2026-07-28", "2025-11-25"} {
			if !strings.Contains(out, "--- FAIL: TestAskToolConversations/"+era+"/"+path+" ") {
				t.Errorf("with the stub's handler, %s does not fail on %s:\n%s", path, era, out)
			}
		}
	}
	if strings.Contains(out, "elicittest: ") || strings.Contains(out, "build failed") {
		t.Errorf("the script does not match the conversation, or does not build:\n%s", out)
	}

	if !strings.Contains(out, "TODO: fill in newAskToolHandler") {
		t.Errorf("the handler's builder does not fail until filled in:\n%s", out)
	}
	// Filled in: the builder returns the handler, which answers every path.
	filled := strings.Replace(string(src), "\tt.Error(\"TODO: fill in newAskToolHandler: build the handler the tests register\")\n", "", 1)
	if filled == string(src) {
		t.Fatalf("no placeholder line in the handler's builder:\n%s", src)
	}
	testmod.WriteFiles(t, dir, map[string]string{"ask_handler.go": stubTestHandler, "ask_test.go": filled})
	if out, err := testmod.Go(t, dir, "test", "-count=1", "."); err != nil {
		t.Fatalf("the test fails with a handler that answers every path: %v\n%s\n%s", err, out, src)
	}
}
