// Package contract holds what the generator writes and the runtime reads,
// which the two must agree on: the version of generated code, the most
// rounds a flow may take, the argument that carries a confirmation token.
// It is a leaf (no imports), so that the generator shares these values
// without linking the runtime's server stack; package runtime re-exports
// each under the same name, documented there.
package contract

// GenVersion is the version of the code the current elicitgen writes
// (runtime.GenVersion: the version lock).
const GenVersion = 5

// DefaultMaxRounds is the most input_required results one call returns by
// default (runtime.DefaultMaxRounds).
const DefaultMaxRounds = 9

// PreviewTokenArgument is the optional tool argument that carries a
// confirmation token (runtime.PreviewTokenArgument).
const PreviewTokenArgument = "confirmation_token"

// PreviewTokenDescription is the input schema description of
// PreviewTokenArgument, for the model.
const PreviewTokenDescription = "Only to confirm a previewed action: the confirmation_token that a previous call of this tool returned with its preview, passed with the same other arguments. Never invent one."

// URLStepPackage and URLStepType name the type a tool's URL step field
// has: the generator recognizes the field by them, whatever alias a
// server's code spells it with (runtime.URLStep).
const (
	URLStepPackage = "github.com/elicitgen/elicitgen/runtime"
	URLStepType    = "URLStep"
)

// PrincipalKey is the context key under which the interpreter binds a
// call's principal, which runtime.PrincipalFrom reads.
type PrincipalKey struct{}

// LinkResultText ends the result of a link fallback, after the step's
// message and the link: the runtime writes it and the generator's
// reference (elicitgen docs) quotes it.
const LinkResultText = "Once you have finished in the browser, ask again and I will go on."

// MissingModeMessage is the message of the -32021 error a tool returns
// when the client cannot show a step of mode ("form" or "url") and the
// step has no fallback: the runtime returns it and the reference quotes it.
func MissingModeMessage(mode string) string {
	return "this tool needs the client to support " + mode + "-mode elicitation"
}
