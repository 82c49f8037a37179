package gen_test

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

var screenshot = flag.Bool("screenshot", false, "rewrite docs/reference/reference-html.png from headless chromium")

// gallerySrc declares a tool with every kind of field and a URL step.
const gallerySrc = `package gallery

import elicitrt "github.com/elicitgen/elicitgen/runtime"

// Size is titled.
type Size string

const (
	Small Size = "small" //elicit:title Small (8 oz)
	Large Size = "large" //elicit:title Large (16 oz)
)

// Region has many values: a select.
type Region string

const (
	EU Region = "eu"
	US Region = "us"
	AP Region = "ap"
	SA Region = "sa"
	AF Region = "af"
	ME Region = "me"
)

// Day is a multi-select item.
type Day string

const (
	Mon Day = "mon" //elicit:title Monday
	Tue Day = "tue" //elicit:title Tuesday
)

// Order is every kind of field.
type Order struct {
	// Where it goes.
	Email    string  ` + "`elicit:\"email,required,format=email\"`" + `
	Size     Size    ` + "`elicit:\"size,required\"`" + `
	Region   Region  ` + "`elicit:\"region,default=eu\"`" + `
	Days     []Day   ` + "`elicit:\"days,min=1,default=mon\"`" + `
	Replicas int     ` + "`elicit:\"replicas,min=1,max=20,default=3\"`" + `
	Ratio    float64 ` + "`elicit:\"ratio,min=0,max=1\"`" + `
	Notify   bool    ` + "`elicit:\"notify,default=true\"`" + `
	Note     string  ` + "`elicit:\"note,max=80\"`" + `
}

// Place places an order after a sign-in.
//
//elicit:tool place
type Place struct {
	Args   struct{}
	SignIn elicitrt.URLStep ` + "`elicit:\"signin,message=Sign in to the shop.,fallback=link\"`" + `
	Order  Order            ` + "`elicit:\"order,message=What would you like?\"`" + `
}
`

// TestReferenceInBrowser renders a reference page and loads it in a real
// headless chromium whose every network request goes to a proxy that
// counts them: every field's label and control are in the DOM, and
// nothing was fetched (a page that loads an image is counted, so the
// count can fail).
func TestReferenceInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no chromium on PATH: %v", err)
		}
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	dir := t.TempDir()
	testmod.New(t, dir, "example.com/gallery")
	testmod.WriteFiles(t, dir, map[string]string{"gallery.go": gallerySrc})
	diags, ref, err := gen.Docs(gen.Config{Dir: dir, Patterns: []string{"."}})
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v\n%s", err, diags.Format(dir))
	}
	page, err := ref.Render("html")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "reference.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, fetched := runChromium(t, chromium, "--dump-dom", "file://"+path)
	if fetched != 0 {
		t.Errorf("the page made %d network connections", fetched)
	}
	checkControls(t, ref, dom)

	// The control: a page that loads an image is counted.
	leaky := filepath.Join(dir, "leaky.html")
	if err := os.WriteFile(leaky, []byte(strings.Replace(string(page), "</body>", `<img src="http://example.com/x.png"></body>`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n := runChromium(t, chromium, "--dump-dom", "file://"+leaky); n == 0 {
		t.Errorf("the proxy counted no connection for a page that loads an image: the check above cannot fail")
	}
	if *screenshot {
		out, _ := filepath.Abs(filepath.Join("..", "docs", "reference", "reference-html.png"))
		runChromium(t, chromium, "--screenshot="+out, "--window-size=1000,1950", "file://"+path)
	}
}

// runChromium runs headless chromium with args, every request through a
// proxy on 127.0.0.1 that refuses it and counts it; it returns the
// standard output and the count.
func runChromium(t *testing.T, chromium string, args ...string) (string, int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var count atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			if !chromiumOwn(line) {
				count.Add(1)
			}
			c.Close()
		}
	}()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir(),
		"--proxy-server=http://" + ln.Addr().String(), "--proxy-bypass-list=<-loopback>"}
	cmd := exec.Command(chromium, append(base, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return string(out), count.Load()
}

// chromiumOwn reports whether a proxy request line is chromium's own
// background traffic (its component updater, sign-in and network time),
// which no page asks for and no flag turns off entirely.
func chromiumOwn(line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 {
		return false
	}
	host := strings.TrimPrefix(f[1], "http://")
	host, _, _ = strings.Cut(host, "/")
	host, _, _ = strings.Cut(host, ":")
	return host == "update.googleapis.com" || host == "accounts.google.com" || host == "clients2.google.com"
}

// checkControls finds, in the DOM chromium built, a label and a control
// of the right kind for every field of every form step.
func checkControls(t *testing.T, ref *gen.Reference, dom string) {
	t.Helper()
	found := 0
	for p, pkg := range ref.Packages {
		for d, decl := range pkg.Declarations {
			for s, step := range decl.Steps {
				for _, f := range step.Fields {
					id := fmt.Sprintf("f%d-%d-%d-%s", p, d, s, f.Property)
					for _, want := range controlPatterns(id, f) {
						if !regexp.MustCompile(want).MatchString(dom) {
							t.Errorf("field %s: no %s in the DOM", f.Property, want)
						}
					}
					found++
				}
			}
		}
	}
	if found != 8 {
		t.Errorf("%d fields checked, want 8", found)
	}
}

func controlPatterns(id string, f gen.RefField) []string {
	q := regexp.QuoteMeta
	switch {
	case f.Type == "boolean":
		return []string{`type="checkbox" id="` + q(id) + `"`, `<label for="` + q(id) + `">` + q(f.Title)}
	case (f.Type == "enum" && len(f.Enum) <= 5) || f.Type == "multi-select":
		kind := "radio"
		if f.Type == "multi-select" {
			kind = "checkbox"
		}
		pats := []string{`<fieldset id="` + q(id) + `"><legend>` + q(f.Title)}
		for i, e := range f.Enum {
			pats = append(pats, `type="`+kind+`" id="`+q(fmt.Sprintf("%s-%d", id, i))+`"`, `<label for="`+q(fmt.Sprintf("%s-%d", id, i))+`">`+q(cmpOr(e.Title, e.Value))+`</label>`)
		}
		return pats
	case f.Type == "enum":
		pats := []string{`<select id="` + q(id) + `"`, `<label for="` + q(id) + `">` + q(f.Title)}
		for _, e := range f.Enum {
			pats = append(pats, `<option value="`+q(e.Value)+`"[^>]*>`+q(cmpOr(e.Title, e.Value))+`</option>`)
		}
		return pats
	case f.Type == "integer" || f.Type == "number":
		return []string{`<input type="number" id="` + q(id) + `"[^>]* min="[-0-9.e]+" max="[-0-9.e]+"`, `<label for="` + q(id) + `">` + q(f.Title)}
	}
	return []string{`<input type="(text|email)" id="` + q(id) + `"`, `<label for="` + q(id) + `">` + q(f.Title)}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
