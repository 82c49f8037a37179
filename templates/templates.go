// Package templates holds the prose of elicitgen: text written once for
// the author to edit, such as the doc comment of a handler stub and the
// sign-in pages of URL steps. Go code itself, generated or stub, is built
// with jennifer in package gen.
package templates

import (
	"embed"
	htmltemplate "html/template"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Stub is the doc comment of the handler type `elicitgen stub` writes.
var Stub = template.Must(template.New("stub.tmpl").ParseFS(files, "stub.tmpl"))

// StubData is what the stub template reads.
type StubData struct {
	Tool     string // the tool's MCP name (a prompt's name, a resource's URI)
	Kind     string // tool, prompt or resource
	Type     string // the handler type to write, e.g. deployHandler
	Handler  string // the generated interface, e.g. DeployHandler
	Register string // e.g. RegisterDeploy
	// Task is the task type of a task tool (//elicit:task), e.g.
	// ReportTask; "" for others. TaskRequired is true for
	// //elicit:task required; Askers counts the task type's typed askers.
	Task         string
	TaskRequired bool
	Askers       int
}

//go:embed signin-*.html
var signInFiles embed.FS

// SignIn returns a fresh set of the sign-in pages the runtime's connect
// page and callback render (signin.NewConnectHandlers), with
// html/template's contextual escaping: one template per page, named by the
// Page constants below, each reading a SignInData, and the shared parts of
// every page ("signin-head", "signin-body", "signin-foot", "signin-brand",
// "signin-style"). To brand the pages beyond the names in SignInData,
// Parse into the set a new definition of a shared part or of a whole page;
// the set is then ConnectOptions.Pages. Each call parses anew, so that no
// two servers share (or redefine) one set.
func SignIn() *htmltemplate.Template {
	return htmltemplate.Must(htmltemplate.New("signin").ParseFS(signInFiles, "signin-*.html"))
}

// The pages of SignIn. A custom set defines every one of them.
const (
	// PageConfirm asks the person to continue to the provider, as the
	// account they are signed in with (ConnectOptions.Confirm).
	PageConfirm = "confirm"
	// PageConnected says the flow completed: the person can return to
	// their assistant.
	PageConnected = "connected"
	// PageSignedOut asks the person to sign in to the site first, then
	// open the link again (when the site has no login URL to send them to).
	PageSignedOut = "signed-out"
	// PageOtherUser refuses a browser signed in as another account, with a
	// sign-out hint.
	PageOtherUser = "other-user"
	// PageInvalid refuses a link that is invalid or has expired.
	PageInvalid = "invalid"
	// PageDone says the flow has already finished, and how
	// (SignInData.Outcome): connected, denied, or still finishing in
	// another tab or request.
	PageDone = "done"
	// PageOtherBrowser refuses a return from the provider in a browser
	// that did not start the sign-in (or started too many since).
	PageOtherBrowser = "other-browser"
	// PageDenied says the person refused at the provider: nothing was
	// connected, and the assistant is told.
	PageDenied = "denied"
	// PageProviderError says the provider failed, and offers to start
	// again.
	PageProviderError = "provider-error"
	// PageError says the server failed.
	PageError = "error"
)

// SignInPages lists every page of SignIn.
var SignInPages = []string{PageConfirm, PageConnected, PageSignedOut, PageOtherUser, PageInvalid,
	PageDone, PageOtherBrowser, PageDenied, PageProviderError, PageError}

// The outcomes of a finished flow, as PageDone reads them.
const (
	OutcomeConnected = "connected"
	OutcomeDenied    = "denied"
)

// SignInData is what every sign-in page reads. URLs are same-origin
// paths or the author's own URLs; a page shows its button only when its
// URL is set.
type SignInData struct {
	Lang     string // the page's language, e.g. "en"
	Service  string // the name of the author's service, e.g. "Billing assistant"
	Provider string // the name of the third party, e.g. "Acme Billing"
	// Account is the account the browser is signed in with, as the site
	// shows it ("" when nobody is signed in).
	Account  string
	Continue string // PageConfirm: where Continue goes (the connect page, confirmed)
	Retry    string // PageProviderError, PageOtherBrowser, PageError: the connect link, to start again
	// SignOut is, on PageOtherUser, the site's sign-out page, with the way
	// back to the link in its return parameter when there is one.
	SignOut string
	// Outcome is, on PageDone, how the flow finished: OutcomeConnected,
	// OutcomeDenied, or "" while another request is finishing it.
	Outcome string
	// Nonce is the CSP nonce the page's <style> element carries: the only
	// style the page's Content-Security-Policy allows.
	Nonce string
}
