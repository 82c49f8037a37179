package main

import (
	"strings"
	"testing"
)

// deleteSrc has a URL step without a fallback, beside scaleSrc's integer
// field and its URL step with the link fallback.
const deleteSrc = `package main

//go:generate go tool elicitgen

import elicitrt "github.com/elicitgen/elicitgen/runtime"

// DeleteArgs are the arguments.
type DeleteArgs struct {
	Repo string ` + "`json:\"repo\"`" + `
}

// DeleteRepo deletes a repository after a sign-in.
//
//elicit:tool delete_repo
type DeleteRepo struct {
	Args   DeleteArgs
	SignIn elicitrt.URLStep ` + "`elicit:\"signin,message=Sign in to the forge.\"`" + `
}
`

// TestVetHosts: vet --hosts reports, at the step, a field that a host
// shows as approve or decline only and a URL step without a fallback on
// the hosts without URL mode, and nothing for a URL step whose link
// fallback serves them; a plain vet stays quiet.
func TestVetHosts(t *testing.T) {
	dir := newApp(t, map[string]string{"scale.go": scaleSrc, "delete.go": deleteSrc})
	if code, _, errOut := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, errOut)
	}
	if code, _, errOut := elicitgen(t, dir, "vet"); code != exitOK || errOut != "" {
		t.Fatalf("vet without --hosts: %d %q, want 0 and nothing", code, errOut)
	}
	code, _, errOut := elicitgen(t, dir, "vet", "--hosts")
	if code != exitDiag {
		t.Errorf("vet --hosts: exit %d, want %d", code, exitDiag)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := []struct{ prefix, has string }{
		{"delete.go:15:2: tool delete_repo, step SignIn (signin): ", "no URL mode: error -32021"},
		{"scale.go:24:2: tool scale, step Count (count): ", "Codex"},
	}
	if len(lines) != len(want) {
		t.Fatalf("vet --hosts printed %d lines, want %d:\n%s", len(lines), len(want), errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w.prefix) || !strings.Contains(lines[i], w.has) {
			t.Errorf("line %d: %q, want %q...%q", i+1, lines[i], w.prefix, w.has)
		}
	}
	if !strings.Contains(lines[1], "approve or decline only: `replicas` (integer) cannot be entered") {
		t.Errorf("the integer field's note: %q", lines[1])
	}
	if strings.Contains(errOut, "step SignIn (signin): ") && strings.Contains(errOut, "scale.go:23") {
		t.Errorf("a URL step with the link fallback was reported:\n%s", errOut)
	}
}
