package runtime_test

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestRecordSealOpen: a record sealed under its binding opens under it,
// with its part, until it expires, and under no other binding or ring.
func TestRecordSealOpen(t *testing.T) {
	k, err := elicitrt.NewKeyring(bytes.Repeat([]byte{7}, elicitrt.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b := elicitrt.RecordBinding{Kind: "test grant", Digest: sha256.Sum256([]byte("alice"))}
	sealed, err := k.SealRecord(b, 3, []byte("the grant"), now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if part, v, err := k.OpenRecord(b, sealed, now.Add(59*time.Minute)); err != nil || part != 3 || string(v) != "the grant" {
		t.Fatalf("open: %d %q %v", part, v, err)
	}
	if _, _, err := k.OpenRecord(b, sealed, now.Add(time.Hour+time.Nanosecond)); err == nil {
		t.Error("an expired record opens")
	}
	other := elicitrt.RecordBinding{Kind: b.Kind, Digest: sha256.Sum256([]byte("bob"))}
	if _, _, err := k.OpenRecord(other, sealed, now); err == nil {
		t.Error("a record opens under another digest")
	}
	if _, _, err := k.OpenRecord(elicitrt.RecordBinding{Kind: "test flow", Digest: b.Digest}, sealed, now); err == nil {
		t.Error("a record opens under another kind")
	}
	if _, _, err := elicitrt.RandomKeyring().OpenRecord(b, sealed, now); err == nil {
		t.Error("a record opens under another key ring")
	}
}

// TestRecordBounds: a Kind that could be a tool's name, a value over
// MaxRecordLen and a nil ring are errors, never a panic.
func TestRecordBounds(t *testing.T) {
	k := elicitrt.RandomKeyring()
	now := time.Now()
	if _, err := k.SealRecord(elicitrt.RecordBinding{Kind: "report"}, 0, nil, now, 0); err == nil || !strings.Contains(err.Error(), "space") {
		t.Errorf("a Kind without a space: %v", err)
	}
	if _, _, err := k.OpenRecord(elicitrt.RecordBinding{Kind: "report"}, "x", now); err == nil {
		t.Error("OpenRecord takes a Kind without a space")
	}
	b := elicitrt.RecordBinding{Kind: "test record"}
	if _, err := k.SealRecord(b, 0, make([]byte, elicitrt.MaxRecordLen), now, 0); err != nil {
		t.Errorf("a value of MaxRecordLen: %v", err)
	}
	if _, err := k.SealRecord(b, 0, make([]byte, elicitrt.MaxRecordLen+1), now, 0); err == nil {
		t.Error("a value over MaxRecordLen seals")
	}
	if _, err := (*elicitrt.Keyring)(nil).SealRecord(b, 0, nil, now, 0); err == nil {
		t.Error("a nil ring seals")
	}
}
