package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// scaleSrc is a tool with an integer field and a URL step, beside the
// README's quick start.
const scaleSrc = `package main

import elicitrt "github.com/elicitgen/elicitgen/runtime"

// ScaleForm asks how many replicas.
type ScaleForm struct {
	Replicas int ` + "`elicit:\"replicas,required,min=1,max=20,title=Replicas\"`" + `
}

// ScaleArgs are the arguments.
type ScaleArgs struct {
	Service string ` + "`json:\"service\"`" + `
}

// Scale scales a service after a sign-in.
//
//elicit:tool scale
type Scale struct {
	Args    ScaleArgs
	SignIn  elicitrt.URLStep ` + "`elicit:\"signin,message=Sign in to the cluster.,fallback=link\"`" + `
	Count   ScaleForm        ` + "`elicit:\"count,message=How many replicas?\"`" + `
}
`

// quickStart is the README's app.go.
func quickStart(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(testmod.Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- file: app.go -->\n```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("no app.go in README.md")
	}
	return string(m[1])
}

// TestDocsQuickStart: on the quick start plus a tool with a URL step and
// an integer field, docs in every format shows every question, its
// titles and enum titles, and what Codex and hosts without URL mode show.
func TestDocsQuickStart(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": quickStart(t), "scale.go": scaleSrc})
	want := []string{"How would you like it?", "Small (8 oz)", "Medium (12 oz)", "Large (16 oz)", "Oat milk",
		"Sign in to the cluster.", "How many replicas?", "Replicas",
		"approve or decline only: `replicas` (integer) cannot be entered", "no URL mode: the link in the result",
		"size is required: one of small, medium, large"}
	for _, format := range []string{"md", "html", "json"} {
		code, out, errOut := elicitgen(t, dir, "docs", "--format", format)
		if code != exitOK {
			t.Fatalf("docs --format %s: %d %s", format, code, errOut)
		}
		if format == "json" {
			var v struct{ Version int }
			if err := json.Unmarshal([]byte(out), &v); err != nil || v.Version != 1 {
				t.Errorf("json: version %d, %v", v.Version, err)
			}
		}
		for _, w := range want {
			if format == "html" {
				w = regexp.MustCompile("`([^`]*)`").ReplaceAllString(w, "<code>$1</code>")
			}
			if !strings.Contains(out, w) {
				t.Errorf("docs --format %s: no %q in\n%s", format, w, out)
			}
		}
	}
	if code, _, errOut := elicitgen(t, dir, "docs", "--format", "pdf"); code != exitUsage || !strings.Contains(errOut, `--format "pdf": md, html or json`) {
		t.Errorf("docs --format pdf: %d %s", code, errOut)
	}
}

// TestContractDiff: generating twice writes the same contract; making a
// field required is breaking (exit 1, the field named); retitling a field
// is not, and says that flows in flight restart.
func TestContractDiff(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": quickStart(t), "scale.go": scaleSrc})
	contract := filepath.Join(dir, "elicit.contract.json")
	read := func() []byte {
		b, err := os.ReadFile(contract)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	gen := func() {
		if code, _, errOut := elicitgen(t, dir); code != exitOK {
			t.Fatalf("elicitgen: %d %s", code, errOut)
		}
	}
	gen()
	base := read()
	gen()
	if string(read()) != string(base) {
		t.Fatal("the second run wrote another contract")
	}
	if code, _, errOut := elicitgen(t, dir, "--check"); code != exitOK {
		t.Fatalf("--check after generating: %d %s", code, errOut)
	}
	basePath := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(basePath, base, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, old, new string
		code           int
		want           []string
	}{
		{"required", "`elicit:\"milk,default=false\"`", "`elicit:\"milk,required\"`", exitDiag, []string{
			`breaking: tool "order_coffee", step "how", field "milk": made required, without a default: an answer without it is refused`,
			"elicitgen diff: 1 breaking change for clients and hosts"}},
		{"retitle", "title=Replicas", "title=Pod count", exitOK, []string{
			`restarts flows in flight: tool "scale", step "count", field "replicas": title "Replicas" → "Pod count"`,
			`restarts flows in flight: tool "scale": a step's digest changed`,
			"elicitgen diff: not breaking; on a rolling deploy, flows in flight restart"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := map[string]string{"app.go": quickStart(t), "scale.go": scaleSrc}
			for name, s := range src {
				src[name] = strings.ReplaceAll(s, c.old, c.new)
			}
			testmod.WriteFiles(t, dir, src)
			if code, stdout, _ := elicitgen(t, dir, "--check"); code != exitDiag || !strings.Contains(stdout, "elicit.contract.json") {
				t.Errorf("--check with a stale contract: %d\n%s", code, stdout)
			}
			gen()
			code, out, errOut := elicitgen(t, dir, "diff", basePath, contract)
			if code != c.code {
				t.Errorf("diff: exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("diff: no %q in\n%s", w, out)
				}
			}
		})
	}
}
