package templates

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// luminance is the WCAG 2 relative luminance of a colour #rrggbb.
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	if len(hex) != 7 || hex[0] != '#' {
		t.Fatalf("colour %q is not #rrggbb", hex)
	}
	var l float64
	for i, weight := range []float64{0.2126, 0.7152, 0.0722} {
		v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		c := float64(v) / 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += weight * c
	}
	return l
}

// contrast is the WCAG 2 contrast ratio of two colours.
func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestSignInContrast: in the light and the dark palette of the sign-in
// pages, every colour of text has a contrast ratio of at least 4.5:1
// (WCAG 2 AA, normal text) with the background it is drawn on.
func TestSignInContrast(t *testing.T) {
	src, err := os.ReadFile("signin-layout.html")
	if err != nil {
		t.Fatal(err)
	}
	roots := regexp.MustCompile(`:root \{([^}]*)\}`).FindAllStringSubmatch(string(src), -1)
	if len(roots) != 2 {
		t.Fatalf("%d :root palettes, want light and dark", len(roots))
	}
	variable := regexp.MustCompile(`--([a-z-]+): (#[0-9a-fA-F]{6});`)
	pairs := [][2]string{ // text, background
		{"text", "card"}, {"text", "bg"}, {"muted", "card"}, {"muted", "bg"},
		{"accent", "card"}, {"accent-text", "accent"}, {"ok", "card"}, {"bad", "card"}, {"warn", "card"},
	}
	for i, root := range roots {
		palette := map[string]string{}
		for _, m := range variable.FindAllStringSubmatch(root[1], -1) {
			palette[m[1]] = strings.ToLower(m[2])
		}
		for _, p := range pairs {
			fg, bg := palette[p[0]], palette[p[1]]
			if fg == "" || bg == "" {
				t.Fatalf("palette %d lacks --%s or --%s", i, p[0], p[1])
			}
			if r := contrast(t, fg, bg); r < 4.5 {
				t.Errorf("palette %d: --%s %s on --%s %s: contrast %.2f:1, want at least 4.5:1", i, p[0], fg, p[1], bg, r)
			}
		}
	}
}

// TestSignInPages: SignIn defines every page, each a whole document with
// a language, a viewport, a title and one h1, and a status shown in words,
// never by colour alone; no two pages (nor two outcomes of the done page)
// share a heading.
func TestSignInPages(t *testing.T) {
	set := SignIn()
	status := regexp.MustCompile(`<p class="status [a-z]+"><span aria-hidden="true">[^<]+</span>[A-Z][a-z ]+</p>`)
	type variant struct{ name, outcome string }
	var variants []variant
	for _, name := range SignInPages {
		variants = append(variants, variant{name, ""})
	}
	variants = append(variants, variant{PageDone, OutcomeConnected}, variant{PageDone, OutcomeDenied})
	h1s := map[string]bool{}
	for _, v := range variants {
		name := v.name
		var b strings.Builder
		if err := set.ExecuteTemplate(&b, name, SignInData{Lang: "en", Service: "S", Provider: "P", Account: "A", Nonce: "n", Outcome: v.outcome}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		page := b.String()
		if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, `<html lang="en">`) || !strings.Contains(page, `name="viewport"`) ||
			strings.Count(page, "<title>") != 1 || strings.Count(page, "<h1>") != 1 {
			t.Errorf("%s:\n%s", name, page)
		}
		if strings.Contains(page, `class="status`) && !status.MatchString(page) {
			t.Errorf("%s: a status without words:\n%s", name, page)
		}
		_, h1, _ := strings.Cut(page, "<h1>")
		h1, _, _ = strings.Cut(h1, "</h1>")
		if h1s[h1] {
			t.Errorf("%s %q: the heading %q of another page", name, v.outcome, h1)
		}
		h1s[h1] = true
	}
}
