package main

import elicitrt "github.com/elicitgen/elicitgen/runtime"

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// NoArgs: list_invoices takes no arguments.
type NoArgs struct{}

// ListInvoices lists the open invoices in the user's billing account. With
// no stored grant for the user, it first sends the user to this server's
// own connect page, which checks that the browser user is the one who asked
// before handing over to the billing provider's sign-in.
//
//elicit:tool list_invoices
//elicit:annotations readonly
type ListInvoices struct {
	Args    NoArgs
	Billing elicitrt.URLStep `elicit:"billing,message=Open this link to connect your billing account.,ask=handler,fallback=link"`
}
