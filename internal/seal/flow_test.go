package seal

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestFlowTokens(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	f := ConnectFlow{ID: NewFlowID(), Subject: "alice", Tool: "t", Step: "s"}
	tok := mustSealFlow(k, f, "", now, time.Minute)
	// The token is ciphertext: its payload (the flow id, tool, step and
	// the subject's digest), read back by opening it, is nowhere in its
	// bytes.
	_, payload, err := k.Open(FlowBinding(""), tok, now)
	if err != nil || !bytes.Contains(payload, []byte(f.ID)) {
		t.Fatalf("opened token: %q %v; want a payload holding the flow id", payload, err)
	}
	wantNotShown(t, decodeState(t, tok), payload)
	got, err := k.OpenFlow(tok, "", now)
	if err != nil || got.ID != f.ID || got.Tool != f.Tool || got.Step != f.Step || got.Subject != "" {
		t.Fatalf("%+v %v", got, err)
	}
	for subject, want := range map[string]bool{"alice": true, "": false, "alic": false, "alice ": false, "Alice": false} {
		if got.IsSubject(subject) != want {
			t.Errorf("IsSubject(%q): %v", subject, !want)
		}
	}
	if _, err := k.OpenFlow(tok, "", now.Add(2*time.Minute)); err != ErrInvalidFlowToken {
		t.Fatal("expired token opened")
	}
	// A requestState never opens as a flow token, nor the reverse.
	state := mustSeal(k, Binding{Tool: "t"}, 1, []byte(`{"f":"x","s":"alice"}`), now, time.Minute)
	if _, err := k.OpenFlow(state, "", now); err != ErrInvalidFlowToken {
		t.Fatal("a requestState opened as a flow token")
	}
	if _, _, err := k.Open(Binding{Tool: "t"}, tok, now); err == nil {
		t.Fatal("a flow token opened as a requestState")
	}
	if _, err := k.OpenFlow(strings.Repeat("A", MaxFlowTokenLen+1), "", now); err != ErrInvalidFlowToken {
		t.Fatal("oversized token")
	}
}

// wantNotShown fails when 8 bytes in a row of payload appear in sealed,
// the bytes of a state or token: what a client could read of it.
func wantNotShown(t *testing.T, sealed, payload []byte) {
	t.Helper()
	for i := 0; i+8 <= len(payload); i++ {
		if bytes.Contains(sealed, payload[i:i+8]) {
			t.Fatalf("sealed bytes show the payload: %q of %q", payload[i:i+8], payload)
		}
	}
}

func FuzzOpenFlow(f *testing.F) {
	k, _ := NewKeyring([]byte("fuzz-flow-key-0123456789abcdef!!"))
	now := time.Unix(1_800_000_000, 0)
	valid := mustSealFlow(k, ConnectFlow{ID: "id", Subject: "s", Tool: "t", Step: "k"}, "", now, time.Hour)
	f.Add(valid)
	f.Add("")
	f.Add("s1.")
	f.Add(valid[:len(valid)-1])
	f.Fuzz(func(t *testing.T, token string) {
		got, err := k.OpenFlow(token, "", now)
		if err != nil {
			if err != ErrInvalidFlowToken {
				t.Fatalf("error %v", err)
			}
			return
		}
		// Only the one flow ever sealed with this key can open (fuzz workers
		// seal their own copy, with another nonce).
		if got.ID != "id" || got.Tool != "t" || got.Step != "k" || got.Subject != "" || !got.IsSubject("s") {
			t.Fatalf("opened %q as %+v", token, got)
		}
	})
}

// TestFlowTokenLengthAnySubject: a flow token carries the digest of its
// subject, not the subject, so that its length is the same for a user id
// of 1 byte or 64 KiB and always within MaxFlowTokenLen (a 4 KiB subject
// made a 5,618-byte token when it was sealed as is). The binding is as
// strong: a subject that differs in its last byte only is not the flow's.
// A token that would still be too long (a tool name of 4 KiB) is an error
// of SealFlow, never a token that OpenFlow refuses.
func TestFlowTokenLengthAnySubject(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	lengths := map[int]bool{}
	for _, n := range []int{1, 100, 1418, 1419, 4096, 64 << 10} {
		subject := strings.Repeat("u", n-1) + "!"
		tok, err := k.SealFlow(ConnectFlow{ID: NewFlowID(), Subject: subject, Tool: "list_invoices", Step: "billing"}, "aud", now, time.Minute)
		if err != nil || len(tok) > MaxFlowTokenLen {
			t.Fatalf("a %d-byte subject: a %d-byte token, %v", n, len(tok), err)
		}
		lengths[len(tok)] = true
		f, err := k.OpenFlow(tok, "aud", now)
		if err != nil || !f.IsSubject(subject) || f.IsSubject(subject[:n-1]+"?") || f.IsSubject(subject[:n-1]) {
			t.Fatalf("a %d-byte subject: %v, or the binding does not hold", n, err)
		}
	}
	if len(lengths) != 1 {
		t.Errorf("token lengths depend on the subject: %v", lengths)
	}
	_, err := k.SealFlow(ConnectFlow{ID: NewFlowID(), Subject: "alice", Tool: strings.Repeat("t", 4096), Step: "billing"}, "", now, time.Minute)
	if err != ErrFlowTokenTooLong {
		t.Fatalf("a 4 KiB tool name: %v", err)
	}
}

// TestFlowTokenOfEarlierRelease: a flow token sealed by the previous
// release, which carried the subject itself, still opens, for that subject
// only, during its short life, so that links handed out before an upgrade
// keep working.
func TestFlowTokenOfEarlierRelease(t *testing.T) {
	k := RandomKeyring()
	now := time.Now()
	tok := mustSeal(k, FlowBinding(""), 0, []byte(`{"f":"flow-1","s":"alice","t":"list_invoices","k":"billing"}`), now, time.Minute)
	f, err := k.OpenFlow(tok, "", now)
	if err != nil || f.ID != "flow-1" || f.Step != "billing" || !f.IsSubject("alice") || f.IsSubject("mallory") {
		t.Fatalf("%+v %v", f, err)
	}
}
