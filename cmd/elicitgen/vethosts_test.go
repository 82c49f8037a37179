package main

import (
	"slices"
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
	want := []string{
		"delete.go:17:2: tool delete_repo, step SignIn (signin): Claude Code, Cursor, Codex, Goose, opencode: no URL mode: error -32021",
		"scale.go:21:2: tool scale, step Count (count): Codex: approve or decline only: `replicas` (integer) cannot be entered",
	}
	if got := strings.Split(strings.TrimSpace(errOut), "\n"); !slices.Equal(got, want) {
		t.Errorf("vet --hosts printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
