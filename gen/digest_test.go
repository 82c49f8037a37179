package gen

import "testing"

// TestStepDigest: a step's digest changes with everything the person is
// shown or that changes what the answer means (each edit below), and with
// nothing else: not with together (rounds only), the Go field's name, or
// the text of the arguments fallback's tool error.
func TestStepDigest(t *testing.T) {
	base := func() *stepModel {
		return &stepModel{GoName: "Ok", Key: "ok", Form: &formModel{Schema: []byte(`{"type":"object","properties":{"confirm":{"type":"boolean"}}}`)},
			Message: "Delete 3 rows?", Fallback: "error", Confirm: "confirm"}
	}
	want := stepDigest(base())
	if len(want) != 32 || want != stepDigest(base()) {
		t.Fatalf("digest %q: want 32 hex digits, the same each time", want)
	}
	changes := map[string]func(s *stepModel){
		"key":             func(s *stepModel) { s.Key = "okay" },
		"message":         func(s *stepModel) { s.Message = "Delete the table?" },
		"message=handler": func(s *stepModel) { s.Message, s.MessageHandler = "", true },
		"schema": func(s *stepModel) {
			s.Form.Schema = []byte(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Sure"}}}`)
		},
		"url":     func(s *stepModel) { s.URL, s.Form = true, nil },
		"confirm": func(s *stepModel) { s.Confirm = "" },
		"once":    func(s *stepModel) { s.Once = true },
		"during":  func(s *stepModel) { s.During = true },
		"prefill": func(s *stepModel) {
			s.Prefill, s.PrefillProps, s.PrefillNeeds = true, []string{"confirm"}, []string{"confirm"}
		},
		"prefill needs": func(s *stepModel) { s.Prefill, s.PrefillProps = true, []string{"confirm"} },
		"ask=handler":   func(s *stepModel) { s.AskHandler = true },
		"fallback":      func(s *stepModel) { s.Fallback = "preview" },
		"accept":        func(s *stepModel) { s.Accept = "confirm" },
	}
	seen := map[string]string{want: "base"}
	for name, change := range changes {
		s := base()
		change(s)
		d := stepDigest(s)
		if prev, dup := seen[d]; dup {
			t.Errorf("%s: digest %s, as %s", name, d, prev)
		}
		seen[d] = name
	}
	for name, change := range map[string]func(s *stepModel){
		"together": func(s *stepModel) { s.Together = true },
		"go name":  func(s *stepModel) { s.GoName = "Okay" },
		"missing":  func(s *stepModel) { s.Missing = "confirm is required" },
	} {
		s := base()
		change(s)
		if d := stepDigest(s); d != want {
			t.Errorf("%s changes the digest, though no person sees it", name)
		}
	}
}
