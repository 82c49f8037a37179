// Package fixes has a did-you-mean of each kind; each is fixed by the word
// the message names (app.go.golden).
package fixes

//go:generate go tool elicitgen

import elicitrt "github.com/elicitgen/elicitgen/runtime"

// Size is how big a coffee is.
type Size string

const (
	Small Size = "small"
	Large Size = "large"
)

// How asks how the user wants their coffee.
type How struct {
	Size Size `elicit:"size,requird"` // want `^unknown elicit option "requird": did you mean required\? \(known: default, enum, enumnames, format, max, min, notsecret, required, title\)$`
}

// OrderArgs are the tool's arguments.
type OrderArgs struct {
	Drink string `json:"drink"`
}

// Order orders a coffee.
//
// want +3 `^unknown directive //elicit:anotations \(did you mean //elicit:annotations\?\)`
//
//elicit:tool order
//elicit:anotations readonly
type Order struct {
	Args OrderArgs
	How  How              `elicit:"how,mesage=How?"`                // want `^unknown step option "mesage": did you mean message\?`
	Pay  elicitrt.URLStep `elicit:"pay,message=Pay.,fallback=eror"` // want `^fallback=eror: did you mean error\?`
}

// Refund refunds an order.
//
// want +5 `^unknown annotation "idempotnt": did you mean idempotent\?`
// want +5 `^unknown //elicit:task value "optinal": did you mean optional\?`
// want +1 `^"// elicit:tool refund" is no directive: write //elicit:tool refund`
// elicit:tool refund
//
//elicit:annotations idempotnt
//elicit:task optinal
type Refund struct {
	Args OrderArgs
	How  How `elicit:"how,message=How?"`
}
