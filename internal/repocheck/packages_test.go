package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The audiences of a package: who imports it.
const (
	leaf      = "leaf"      // shared by the generator and the runtime: the standard library only
	user      = "user"      // what a server author imports
	generated = "generated" // what generated code imports, nobody else
	server    = "server"    // the runtime's rooms, internal
	adapter   = "adapter"   // an optional backend, a module of its own
	generator = "generator" // elicitgen itself: the command, the generator, the analyzer
	testKit   = "test kit"  // imported by tests only
	tool      = "tool"      // the repository's own commands and checks
	example   = "example"   // examples and benchmarks: read and copied, never imported
)

type row struct {
	audience string
	layer    int      // a package servers link: its layer (docs/design/design.md#layers); -1 for the others
	external []string // module path prefixes it may import besides the standard library
}

// packages is the one table of the repository's packages, every module's,
// by path from the root module; a path ending in "/" is every package
// under it. TestImportsPointDown reads the layers, TestGeneratorSharesOnlyLeaves
// the generator, TestTestkitOnlyInTests the test kits, and
// TestDesignPictureIsTheTable holds docs/design/design.md's picture to it.
var packages = map[string]row{
	// Layer 0, leaves: the generator shares format, contract, hostmatrix and
	// templates; seal is the key ring and sealed states; backend the
	// contract of stores and hooks, with the memory defaults.
	"internal/format":     {leaf, 0, nil},
	"internal/contract":   {leaf, 0, nil},
	"internal/hostmatrix": {leaf, 0, nil},
	"internal/seal":       {server, 0, nil},
	"runtime/backend":     {user, 0, nil},
	"templates":           {leaf, 0, nil},
	// Layer 1: what users hold (the options, the task, the answers, the
	// key ring), below the interpreter built on these types; why a state,
	// token or link was refused, logged for the operator.
	"runtime":         {user, 1, []string{sdk}},
	"internal/refuse": {server, 1, nil},
	// Layer 2: the task runtime; the adapters, modules of their own, on the
	// contract and the user package, never the interpreter.
	"internal/taskrun":   {server, 2, []string{sdk}},
	"runtime/redisstore": {adapter, 2, []string{"github.com/redis/go-redis/v9"}},
	"runtime/otelelicit": {adapter, 2, []string{otelAPI + "/"}},
	// Layer 3: the interpreter of step tables; the opt-in OpenTelemetry
	// setup above the hooks it returns.
	"internal/machine":             {server, 3, []string{sdk, jsonschema}},
	"runtime/otelelicit/otelsetup": {adapter, 3, []string{otelAPI + "/", "github.com/prometheus/client_golang/"}},
	// Layer 4: features in rooms of their own, the transports and tasks
	// (tasks plug into the transport through its hooks, wired by serve).
	// The transport decodes an initialize with the decoder the SDK uses.
	"internal/transport": {server, 4, []string{sdk, "github.com/segmentio/encoding/"}},
	"internal/tasks":     {server, 4, []string{sdk}},
	// Layer 5: the entry points, and what generated code imports.
	"runtime/serve":      {user, 5, []string{sdk}},
	"runtime/signin":     {user, 5, nil},
	"runtime/elicitimpl": {generated, 5, []string{sdk}},
	// Layers 6 and 7: the public test kit, on top of the entry points:
	// its low level (hosts, transports, the fuzz validator), then the
	// scripted client on it.
	"runtime/elicittest": {testKit, 7, []string{sdk}},
	// The kit's low level: hosts, transports and raw answers.
	"runtime/elicittest/hosttest": {testKit, 6, []string{sdk}},
	// The kit's independent validator of a generated decoder, for fuzzing.
	"runtime/elicittest/formcheck": {testKit, 6, []string{jsonschema}},
	// The kit's raw JSON-RPC client, for what an SDK client would not send;
	// it imports no elicitgen package, so the runtime's own tests use it too.
	"runtime/elicittest/rawrpc": {testKit, -1, []string{sdk}},
	// A server whose prompt and resource template ask, written as
	// generated code would be: for testing hooks and middleware.
	"runtime/elicittest/asktest": {testKit, 6, []string{sdk}},

	// The adapters' public test helpers, and the repository's own kit.
	"runtime/redisstore/redistest":          {testKit, -1, nil},
	"runtime/otelelicit/oteltest":           {testKit, -1, nil},
	"runtime/otelelicit/otelsetup/promtest": {testKit, -1, nil},
	"internal/testkit/":                     {testKit, -1, nil},

	"gen":              {generator, -1, nil},
	"vet":              {generator, -1, nil},
	"cmd/elicitgen":    {generator, -1, nil},
	"vet/golangcilint": {generator, -1, nil},

	"internal/cmd/":      {tool, -1, nil},
	"internal/docscheck": {tool, -1, nil},
	"internal/repocheck": {tool, -1, nil},

	"examples":  {example, -1, nil},
	"examples/": {example, -1, nil},
	"bench":     {example, -1, nil},
	"bench/":    {example, -1, nil},
}

const (
	otelAPI    = "go.opentelemetry.io/otel"
	sdk        = "github.com/modelcontextprotocol/go-sdk/"
	jsonschema = "github.com/google/jsonschema-go/"
)

// rowOf is the row of the package at path (from the root module), the
// longest prefix row for a package under a "/" row.
func rowOf(path string) (row, bool) {
	if r, ok := packages[path]; ok && !strings.HasSuffix(path, "/") {
		return r, true
	}
	best := ""
	for p := range packages {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) && len(p) > len(best) {
			best = p
		}
	}
	r, ok := packages[best]
	return r, ok && best != ""
}

// layered is the row of a package servers link (layer 0 or above).
func layered(path string) (row, bool) {
	r, ok := packages[path]
	return r, ok && r.layer >= 0
}

// layeredRows is how many packages of the table servers link.
func layeredRows() int {
	n := 0
	for _, r := range packages {
		if r.layer >= 0 {
			n++
		}
	}
	return n
}

// rowsOf are the table's paths of one audience.
func rowsOf(audience string) []string {
	var paths []string
	for p, r := range packages {
		if r.audience == audience {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return paths
}

func isTestHelper(path string) bool {
	r, ok := rowOf(path)
	return ok && r.audience == testKit
}

func isGenerator(path string) bool {
	r, ok := rowOf(path)
	return ok && r.audience == generator
}

// TestEveryPackageHasARow: every package of every module of the workspace
// is in the table, so a new package says where it stands before it lands.
func TestEveryPackageHasARow(t *testing.T) {
	pkgs := goList(t, "-f", "{{.ImportPath}}", module+"...")
	for _, p := range pkgs {
		path := strings.TrimPrefix(strings.TrimPrefix(p, module), strings.TrimSuffix(module, "/"))
		if path == "" {
			path = "."
		}
		if _, ok := rowOf(path); !ok {
			t.Errorf("%s has no row in internal/repocheck's table of packages: give it its audience (and layer, if servers link it)", path)
		}
	}
	if len(pkgs) < len(packages) {
		t.Fatalf("go list found %d packages, fewer than the table's %d rows", len(pkgs), len(packages))
	}
}

var pictureLayer = regexp.MustCompile(`^\s*layer (\d)\s+(.*)$`)

// TestDesignPictureIsTheTable: each "layer N" line of docs/design/design.md's
// picture names packages of that layer in the table, and every package of
// layers 0 to 5 is named on its line: the picture cannot drift from the
// rule the tests hold.
func TestDesignPictureIsTheTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "design", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[string]int{}
	for line := range strings.SplitSeq(string(data), "\n") {
		m := pictureLayer.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, word := range strings.Fields(m[2]) {
			if r, ok := packages[word]; ok {
				drawn[word] = n
				if r.layer != n {
					t.Errorf("docs/design/design.md draws %s in layer %d; the table says %d", word, n, r.layer)
				}
			}
		}
	}
	for p, r := range packages {
		if _, ok := drawn[p]; !ok && r.layer >= 0 && r.layer <= 5 {
			t.Errorf("docs/design/design.md's picture has no %s (layer %d)", p, r.layer)
		}
	}
}
