package seal

import (
	"testing"
	"time"
)

// TestLinkFlows: a link's flow id and token are derived: the same inputs
// give the same id and the same token on every ring of the same key, and
// any other input (tool, step, principal, audience, window, attempt, key,
// expiry) another; the token opens as any flow token does, for its
// audience, until it expires.
func TestLinkFlows(t *testing.T) {
	key := make([]byte, KeySize)
	key[0] = 1
	k1, _ := NewKeyring(key)
	k2, _ := NewKeyring(key)
	other := RandomKeyring()
	id := k1.LinkFlowID("list_invoices", "billing", "alice", "aud", 7, 0)
	if id != k2.LinkFlowID("list_invoices", "billing", "alice", "aud", 7, 0) || len(id) != 22 {
		t.Fatalf("flow id %q: not the same on a ring of the same key", id)
	}
	seen := map[string]string{id: "base"}
	for name, got := range map[string]string{
		"tool":      k1.LinkFlowID("list_orders", "billing", "alice", "aud", 7, 0),
		"step":      k1.LinkFlowID("list_invoices", "crm", "alice", "aud", 7, 0),
		"principal": k1.LinkFlowID("list_invoices", "billing", "bob", "aud", 7, 0),
		"audience":  k1.LinkFlowID("list_invoices", "billing", "alice", "", 7, 0),
		"window":    k1.LinkFlowID("list_invoices", "billing", "alice", "aud", 8, 0),
		"attempt":   k1.LinkFlowID("list_invoices", "billing", "alice", "aud", 7, 1),
		"key":       other.LinkFlowID("list_invoices", "billing", "alice", "aud", 7, 0),
		"split":     k1.LinkFlowID("list_invoicesb", "illing", "alice", "aud", 7, 0),
	} {
		if prev, dup := seen[got]; dup {
			t.Errorf("%s: the same flow id as %s", name, prev)
		}
		seen[got] = name
	}
	now := time.Unix(1_900_000_000, 0)
	f := ConnectFlow{ID: id, Subject: "alice", Tool: "list_invoices", Step: "billing"}
	token, err := k1.SealLinkFlow(f, "aud", now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := k2.SealLinkFlow(f, "aud", now.Add(time.Minute)); again != token {
		t.Fatal("the same flow sealed twice: two tokens")
	}
	if later, _ := k1.SealLinkFlow(f, "aud", now.Add(2*time.Minute)); later == token {
		t.Fatal("another expiry: the same token")
	}
	got, err := k1.OpenFlow(token, "aud", now)
	if err != nil || got.ID != id || !got.IsSubject("alice") || got.IsSubject("bob") || got.Tool != "list_invoices" || got.Step != "billing" {
		t.Fatalf("opened %+v %v", got, err)
	}
	if _, err := k1.OpenFlow(token, "", now); err == nil {
		t.Error("opens under another audience")
	}
	if _, err := k1.OpenFlow(token, "aud", now.Add(time.Minute+time.Nanosecond)); err == nil {
		t.Error("opens after it expired")
	}
	if _, _, err := k1.Open(FlowBinding("aud"), token, now); err != nil {
		t.Errorf("not a flow token: %v", err)
	}
}
