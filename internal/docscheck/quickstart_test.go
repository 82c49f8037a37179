package docscheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestQuickStart is the README's walk-through, as a new user on a fresh
// clone would do it: a module of the README's whole-file snippets that
// requires this checkout (the Install section's go mod edit, with the
// checkout's path), go generate, elicitgen --check, the README's test
// (the kit's, both eras, in memory), a build, and the
// server started over HTTP on 127.0.0.1 and over stdio, each driven through
// one order by the Go SDK's client; over HTTP also the README's raw
// round trip and its claims about a tampered state.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	root := testmod.Root(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The test does what the Install section says, so both must agree.
	for _, step := range []string{
		"go mod edit -replace github.com/elicitgen/elicitgen=../elicitgen \\\n  -require github.com/elicitgen/elicitgen@v0.0.0 \\\n  -tool github.com/elicitgen/elicitgen/cmd/elicitgen",
		"//go:generate go tool elicitgen",
		"go tool elicitgen --check ./...",
		"go run . -http 127.0.0.1:8080",
		"go mod init example.com/coffee",
		// rawRoundTrip checks these two claims on the running server.
		"Each result comes as one server-sent event (`Content-Type:\ntext/event-stream`",
		"an error that the SDK maps to an HTTP status (400, 404) is a\nplain `application/json` body",
	} {
		if !bytes.Contains(readme, []byte(step)) {
			t.Errorf("README.md no longer says %q: update TestQuickStart with it", step)
		}
	}
	d, err := Read(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range d.Files {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "app.go barista.go main.go app_test.go" {
		t.Fatalf("README's whole-file snippets: %s", got)
	}

	// In the README's order: a new module, the Install commands (with the
	// checkout's path), then the files.
	dir := filepath.Join(t.TempDir(), "coffee")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "mod", "init", "example.com/coffee")
	// go.sum from the checkout, so that go mod tidy needs no network here.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	testmod.WriteFiles(t, dir, map[string]string{"go.sum": string(sum)})
	goCmd(t, dir, "mod", "edit", "-replace", "github.com/elicitgen/elicitgen="+root,
		"-require", "github.com/elicitgen/elicitgen@v0.0.0",
		"-tool", "github.com/elicitgen/elicitgen/cmd/elicitgen")
	goCmd(t, dir, "mod", "tidy")
	files := map[string]string{}
	for _, f := range d.Files {
		files[f.Name] = f.Body
	}
	testmod.WriteFiles(t, dir, files)
	// "Run it": tidy for what the files import (the generator itself
	// links neither the SDK nor the runtime), then generate.
	goCmd(t, dir, "mod", "tidy")
	goCmd(t, dir, "generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "app_elicit.go")); err != nil {
		t.Fatalf("go generate wrote no app_elicit.go: %v", err)
	}
	// The generated API the README shows is the one generated.
	generated, err := os.ReadFile(filepath.Join(dir, "app_elicit.go"))
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile("(?s)```go\n(type OrderCoffeeHandler interface \\{.*?)```").FindSubmatch(readme)
	if shown == nil {
		t.Fatal("README.md no longer shows OrderCoffeeHandler")
	}
	for _, line := range strings.Split(string(shown[1]), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == "}" {
			continue
		}
		if !bytes.Contains(generated, []byte(line)) {
			t.Errorf("README.md shows %q, which the generated app_elicit.go does not have", line)
		}
	}
	moduleGraphIsSmall(t, dir)
	goCmd(t, dir, "tool", "elicitgen", "--check", "./...")
	goCmd(t, dir, "vet", "./...")
	kitRunWarnsNot(t, dir)
	bin := filepath.Join(t.TempDir(), "coffee")
	goCmd(t, dir, "build", "-o", bin, ".")
	testFailsOnChange(t, dir, files)

	t.Run("http", func(t *testing.T) {
		endpoint := startHTTP(t, bin)
		quickStartOrder(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		quickStartOrder(t, &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		rawRoundTrip(t, endpoint)
		noForms(t, endpoint)
	})
	t.Run("stdio", func(t *testing.T) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), elicitrt.KeysEnv+"="+seal.GenerateKey())
		quickStartOrder(t, &mcp.CommandTransport{Command: cmd}, nil)
	})
}

// moduleGraphIsSmall: the quick start's module, which imports runtime and
// runs the generator as a tool, has in its module graph only the go-sdk's
// modules and the generator's (graphModules), and no heavy adapter's
// dependency in go.sum (docs/design/modules.md).
func moduleGraphIsSmall(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	mods := strings.Fields(string(out))
	for _, m := range mods[1:] { // the first is the module itself
		if !slices.Contains(graphModules, m) {
			t.Errorf("the quick start's module graph has %s, which neither the go-sdk nor the generator brings (docs/design/modules.md)", m)
		}
	}
	if len(mods) < 20 {
		t.Errorf("go list -m all listed %d modules: %s", len(mods), out)
	}
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, heavy := range heavyModules {
		if bytes.Contains(sum, []byte(heavy)) {
			t.Errorf("the quick start's go.sum names %s, which only an opt-in module may need", heavy)
		}
	}
}

// graphModules are the modules a server that imports runtime and runs the
// generator as a go tool has in its graph: 27 besides its own.
var graphModules = []string{
	"github.com/elicitgen/elicitgen",
	// The go-sdk and its graph (13): what a server on the SDK alone has.
	"github.com/modelcontextprotocol/go-sdk", "github.com/google/jsonschema-go", "github.com/segmentio/asm",
	"github.com/segmentio/encoding", "github.com/yosida95/uritemplate/v3", "github.com/golang-jwt/jwt/v5",
	"github.com/google/go-cmp", "golang.org/x/oauth2", "cloud.google.com/go/compute/metadata",
	"golang.org/x/time", "golang.org/x/tools", "golang.org/x/sync", "golang.org/x/sys",
	// The generator's: go/packages (x/tools, whose own requirements a
	// build that imports it loads), the emitter, the tag parser.
	"golang.org/x/mod", "golang.org/x/net", "golang.org/x/telemetry", "github.com/yuin/goldmark",
	"github.com/dave/jennifer", "github.com/fatih/structtag",
	// The command line: cobra's go.mod predates module graph pruning (go
	// 1.15), so its requirements come in with their own.
	"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/inconshreveable/mousetrap",
	"github.com/cpuguy83/go-md2man/v2", "github.com/russross/blackfriday/v2", "go.yaml.in/yaml/v3", "gopkg.in/check.v1",
}

// heavyModules are the dependencies that only the adapters, the examples
// and the lint plugin may bring in (docs/design/modules.md).
var heavyModules = []string{"go.opentelemetry.io/", "github.com/prometheus/", "github.com/redis/", "github.com/chromedp/", "github.com/golangci/"}

// goCmd runs the go command in dir, failing the test on an error.
// testFailsOnChange: the quick start's test fails when the barista says
// something else, and, naming the step, when the form asks something else
// (files are the quick start's files); it passes again with them as
// written.
func testFailsOnChange(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for _, c := range []struct{ file, from, to, says string }{
		{"barista.go", `"Ordered a %s %s%s."`, `"Ordered a %s %s%s!"`, "Ordered a large latte with oat milk!"},
		{"app.go", "message=How would you like it?", "message=How do you like it?", `step 1 of the script (accept "how")`},
	} {
		changed := strings.Replace(files[c.file], c.from, c.to, 1)
		if changed == files[c.file] {
			t.Fatalf("%s no longer has %s", c.file, c.from)
		}
		testmod.WriteFiles(t, dir, map[string]string{c.file: changed})
		goCmd(t, dir, "generate", "./...")
		cmd := exec.Command("go", "test", "./...")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.says) {
			t.Errorf("the quick start's test with %s changed: %v, want a failure saying %s:\n%s", c.file, err, c.says, out)
		}
		testmod.WriteFiles(t, dir, map[string]string{c.file: files[c.file]})
	}
	goCmd(t, dir, "generate", "./...")
	goCmd(t, dir, "test", "./...")
}

// kitRunWarnsNot runs the quick start's test, verbose and without
// ELICITGEN_STATE_KEYS, as a new user's first run: the kit brings its
// own key ring, so no key warning is printed, even with -v (where t.Log
// lines show).
func kitRunWarnsNot(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "test", "-v", "-count=1", "./...")
	cmd.Dir = dir
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, elicitrt.KeysEnv+"=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -v: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte(elicitrt.KeysEnv)) {
		t.Errorf("the quick start's test warns of the keys:\n%s", out)
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// startHTTP starts the quick start's binary with -http 127.0.0.1:0 and
// returns its MCP endpoint, from the line it logs.
func startHTTP(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), elicitrt.KeysEnv+"="+seal.GenerateKey())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	serving := regexp.MustCompile(`coffee: serving MCP at (http://127\.0\.0\.1:\d+/mcp)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case endpoint := <-found:
		return endpoint
	case <-time.After(30 * time.Second):
		t.Fatal("the quick start server did not log its address")
	}
	return ""
}

// quickStartOrder orders a latte through a Go SDK client on transport: the
// user is asked how they would like it, answers large with oat milk, and
// the tool completes with the handler's text.
func quickStartOrder(t *testing.T, transport mcp.Transport, sopts *mcp.ClientSessionOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := &hosttest.User{Replies: []*mcp.ElicitResult{hosttest.Accept(map[string]any{"size": "large", "milk": true})}}
	client := mcp.NewClient(&mcp.Implementation{Name: "docscheck", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: user.Handle})
	cs, err := client.Connect(ctx, transport, sopts)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "order_coffee" ||
		tools.Tools[0].Description != "Orders a coffee, asking the user which size unless the model already said." {
		t.Fatalf("tools/list: %+v", tools.Tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order_coffee", Arguments: map[string]any{"drink": "latte"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hosttest.Text(res); got != "Ordered a large latte with oat milk." {
		t.Fatalf("result: %q (%+v)", got, res)
	}
	if len(user.Asked) != 1 || user.Asked[0].Message != "How would you like it?" {
		t.Fatalf("asked: %+v", user.Asked)
	}
	// With the size among the arguments (prefill) nobody is asked.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "order_coffee", Arguments: map[string]any{"drink": "mocha", "size": "small"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hosttest.Text(res); got != "Ordered a small mocha." || len(user.Asked) != 1 {
		t.Fatalf("prefilled: %q, asked %d", got, len(user.Asked))
	}
}

// noForms: a client that cannot show forms gets a tool error naming the
// missing argument (fallback=arguments), as the README says.
func noForms(t *testing.T, endpoint string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "docscheck", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order_coffee", Arguments: map[string]any{"drink": "latte"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hosttest.Text(res); !res.IsError || got != "size is required: one of small, medium, large" {
		t.Fatalf("without forms: isError %v, %q", res.IsError, got)
	}
}

// rawRoundTrip posts the README's two requests as its curl command does,
// and a third with a tampered state, which must get HTTP 400 with a plain
// JSON error.
func rawRoundTrip(t *testing.T, endpoint string) {
	t.Helper()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	first := postMCP(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"order_coffee","arguments":{"drink":"latte"},`+meta+`}}`, http.StatusOK)
	var r1 struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			RequestState  string                     `json:"requestState"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
		} `json:"result"`
	}
	if err := json.Unmarshal(first, &r1); err != nil || r1.Result.ResultType != "input_required" || r1.Result.RequestState == "" || r1.Result.InputRequests["how"] == nil {
		t.Fatalf("first response: %v\n%s", err, first)
	}
	for _, want := range []string{`"message":"How would you like it?"`, `{"const":"large","title":"Large (16 oz)"}`, `"milk":{"type":"boolean","title":"Milk","description":"Oat milk","default":false}`} {
		if !bytes.Contains(first, []byte(want)) {
			t.Errorf("first response lacks %s:\n%s", want, first)
		}
	}
	retry := func(state string) string {
		st, _ := json.Marshal(state)
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"order_coffee","arguments":{"drink":"latte"},` +
			`"inputResponses":{"how":{"action":"accept","content":{"size":"large","milk":true}}},"requestState":` + string(st) + `,` + meta + `}}`
	}
	second := postMCP(t, endpoint, retry(r1.Result.RequestState), http.StatusOK)
	if !bytes.Contains(second, []byte(`"content":[{"type":"text","text":"Ordered a large latte with oat milk."}],"resultType":"complete"`)) {
		t.Errorf("second response:\n%s", second)
	}
	tampered := r1.Result.RequestState[:len(r1.Result.RequestState)-2] + "AA"
	if tampered == r1.Result.RequestState {
		tampered = r1.Result.RequestState[:len(r1.Result.RequestState)-2] + "BB"
	}
	third := postMCP(t, endpoint, retry(tampered), http.StatusBadRequest)
	if got := strings.TrimSpace(string(third)); got != `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid or expired requestState"}}` {
		t.Errorf("tampered state: %s", got)
	}
}

// postMCP posts body with the README's curl headers, checks the status,
// and returns the JSON-RPC message of the response: as the README says,
// the data of the one event of an event stream for a result, a plain JSON
// body for an HTTP error (status 400 and up).
func postMCP(t *testing.T, endpoint, body string, status int) []byte {
	t.Helper()
	req, err := http.NewRequest("POST", endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "order_coffee")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, data)
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case status >= 400 && strings.HasPrefix(ct, "application/json"):
		return data
	case status < 400 && strings.HasPrefix(ct, "text/event-stream"):
		var msg []byte
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "data:"); ok {
				if msg != nil {
					t.Fatalf("more than one event: %s", data)
				}
				msg = []byte(strings.TrimSpace(rest))
			}
		}
		if msg == nil || !strings.HasPrefix(string(data), "event: message\n") {
			t.Fatalf("not one message event: %s", data)
		}
		return msg
	}
	t.Fatalf("status %d with Content-Type %q: README.md (quick start) and docs/reference/runtime.md (response framing) say a result is one text/event-stream event and an HTTP error plain application/json; fix the code or both docs\n%s", resp.StatusCode, ct, data)
	return nil
}
