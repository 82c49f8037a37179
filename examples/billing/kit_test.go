package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// The billing tool with the test kit: the kit finishes the sign-in through
// the grant store and key ring it gives the server, as the connect pages
// would (TestSignInFlow drives the real pages).

const kitBase = "https://billing.example"

// kitServer is the billing server on the kit's options: its handler reads
// grants from the store the kit gives the tool.
func kitServer(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "v1.0.0"}, nil)
	RegisterListInvoices(server, &invoices{base: kitBase, grants: opts.Grants}, opts)
	return server
}

const connectMessage = "Open this link to connect your billing account."

// TestKitSignIn: a signed-in URL step lets the tool read the invoices, on
// both eras, and the grant it stored skips the step on the next call.
func TestKitSignIn(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, kitServer, &elicittest.Options{Era: era, Principal: "alice"})
			out := c.Call("list_invoices", nil,
				elicittest.SignIn(ListInvoicesStepBilling).Message(connectMessage).Check(connectLink))
			out.WantText(t, "2 open invoices.")
			if strings.Contains(out.Questions[0].URL, "alice") {
				t.Errorf("the link carries the user: %s", out.Questions[0].URL)
			}
			c.Call("list_invoices", nil).WantText(t, "2 open invoices.")
		})
	}
}

// connectLink checks that a question is the server's connect link.
func connectLink(q *elicittest.Question) error {
	if q.Mode != "url" || !strings.HasPrefix(q.URL, kitBase+"/connect?flow=") {
		return &linkError{q.URL}
	}
	return nil
}

type linkError struct{ url string }

func (e *linkError) Error() string { return "a URL step to " + kitBase + "/connect, not " + e.url }

// TestKitSignInDenied: a sign-in refused at the provider, and a declined
// URL step, take the decline path on both eras.
func TestKitSignInDenied(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, kitServer, &elicittest.Options{Era: era})
			c.Call("list_invoices", nil, elicittest.DenySignIn(ListInvoicesStepBilling)).WantText(t, notConnected)
			c.Call("list_invoices", nil, elicittest.Decline(ListInvoicesStepBilling)).WantText(t, notConnected)
		})
	}
}

// TestKitSignInUnfinished: a URL step accepted before the sign-in
// finished. On 2026-07-28 the retry asks again (billing.2) with the same
// link, and the sign-in then completes the call; on 2025-11-25 the call
// ends "not finished yet", and once the sign-in is done the next call
// reads the invoices without asking.
func TestKitSignInUnfinished(t *testing.T) {
	t.Run("2026-07-28", func(t *testing.T) {
		c := elicittest.Start(t, kitServer, nil)
		out := c.Call("list_invoices", nil,
			elicittest.Accept(ListInvoicesStepBilling, nil),
			elicittest.SignIn(ListInvoicesStepBilling))
		out.WantText(t, "2 open invoices.")
		if len(out.Questions) != 2 || out.Questions[1].Key != "billing.2" || out.Questions[1].URL != out.Questions[0].URL {
			t.Errorf("questions %v, want billing then billing.2 with the same link", out.Questions)
		}
	})
	t.Run("2025-11-25", func(t *testing.T) {
		c := elicittest.Start(t, kitServer, &elicittest.Options{Era: elicittest.Legacy})
		out := c.Call("list_invoices", nil, elicittest.Accept(ListInvoicesStepBilling, nil))
		out.WantText(t, "The step in the browser has not finished yet: finish it, then ask again.")
		c.SignIn(out.Questions[0].URL)
		c.Call("list_invoices", nil).WantText(t, "2 open invoices.")
	})
}

// TestKitSignInLink: a client that cannot show URL mode gets the link in
// the result (fallback=link); signed in, the next call goes on.
func TestKitSignInLink(t *testing.T) {
	formOnly := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, kitServer, &elicittest.Options{Era: era, Capabilities: formOnly})
			out := c.Call("list_invoices", nil)
			link := out.Link()
			if !strings.HasPrefix(link, kitBase+"/connect?flow=") || out.Fallbacks()[0] != "billing: link" {
				t.Fatalf("result %s (fallbacks %v), want the connect link", out, out.Fallbacks())
			}
			c.SignIn(link)
			c.Call("list_invoices", nil).WantText(t, "2 open invoices.")
		})
	}
}

// TestKitSignInRefused: the kit refuses to finish a flow that already
// finished (the pages answer a replayed callback with 409), and a link
// of another server (keys the kit does not hold); either fails the test.
func TestKitSignInRefused(t *testing.T) {
	r := &failures{TB: t}
	c := elicittest.Start(r, kitServer, nil)
	out := c.Call("list_invoices", nil, elicittest.SignIn(ListInvoicesStepBilling).Grant(nil))
	out.WantText(t, notConnected) // finished, but no grant stored
	link := out.Questions[0].URL
	c.SignIn(link)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "already finished") {
		t.Errorf("a second sign-in: %q", r.errors)
	}
	other := &failures{TB: t}
	elicittest.Start(other, kitServer, nil).SignIn(link)
	if len(other.errors) != 1 || !strings.Contains(other.errors[0], "no flow token") {
		t.Errorf("another server's link: %q", other.errors)
	}
}

// failures is a testing.TB that keeps the kit's failures.
type failures struct {
	testing.TB
	errors []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
