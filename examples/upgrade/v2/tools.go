// Package v2 is release N+1 of the server of examples/upgrade: the tools
// of package v1 after a deploy, each changed as its comment says.
package v2

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/examples/upgrade/record"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// YesNo is a plain yes or no.
type YesNo struct {
	Yes bool `elicit:"yes,required"`
}

// OK is a confirmation: only yes confirms.
type OK struct {
	Confirm bool `elicit:"confirm,required"`
}

// Env names an environment.
type Env struct {
	Env string `elicit:"env,required"`
}

// Environment names an environment: v1's Env with its field renamed.
type Environment struct {
	Environment string `elicit:"environment,required"`
}

// Region is where to run: v1's without asia.
type Region string

const (
	Europe  Region = "eu"
	America Region = "us"
)

// RegionChoice asks for a region.
type RegionChoice struct {
	Region Region `elicit:"region,required"`
}

// Args are every tool's arguments.
type Args struct {
	Service string `json:"service,omitempty"`
}

// Cleanup asks v1's two questions in the other order.
//
//elicit:tool cleanup
type Cleanup struct {
	Args    Args
	Archive YesNo `elicit:"archive,message=Archive the old logs?"`
	Purge   YesNo `elicit:"purge,message=Purge the whole database?"`
}

// Scope asks for the confirmation first, then the scope.
//
//elicit:tool scope
type Scope struct {
	Args  Args
	Ok    OK  `elicit:"ok,message=Go ahead?,confirm"`
	Scope Env `elicit:"scope,message=Which environment?"`
}

// Notify asks for an approval where v1 asked whether to notify: as many
// steps, the second replaced.
//
//elicit:tool notify
type Notify struct {
	Args     Args
	Target   Env `elicit:"target,message=Which environment?"`
	Approval OK  `elicit:"approval,message=Approve the change?,confirm"`
}

// Rename's target form has its field renamed, under the same step key.
//
//elicit:tool rename
type Rename struct {
	Args   Args
	Target Environment `elicit:"target,message=Which environment?"`
	Ok     OK          `elicit:"ok,message=Go ahead?,confirm"`
}

// Place no longer offers asia.
//
//elicit:tool place
type Place struct {
	Args   Args
	Region RegionChoice `elicit:"region,message=Which region?"`
	Ok     OK           `elicit:"ok,message=Go ahead?,confirm"`
}

// Drop asks v1's confirmation in other words: a yes to v1's question is
// not a yes to this one.
//
//elicit:tool drop
type Drop struct {
	Args Args
	Ok   OK `elicit:"ok,message=Delete the table?,confirm"`
}

// Grow asks a second question after v1's one.
//
//elicit:tool grow
type Grow struct {
	Args   Args
	First  YesNo `elicit:"first,message=First?"`
	Second YesNo `elicit:"second,message=Second?"`
}

// Shrink asks only v1's first question.
//
//elicit:tool shrink
type Shrink struct {
	Args  Args
	First YesNo `elicit:"first,message=First?"`
}

// Same asks what v1's asks, word for word; only this description, which
// the model reads, and the handler's code changed.
//
//elicit:tool same
type Same struct {
	Args   Args
	Target Env `elicit:"target,message=Which environment?,prefill,fallback=arguments"`
	Ok     OK  `elicit:"ok,message=Go ahead?,confirm,once,fallback=preview"`
}

// Launch asks v1's confirmation in other words.
//
//elicit:tool launch
type Launch struct {
	Args Args
	Ok   OK `elicit:"ok,message=Launch all the rockets?,once,confirm,fallback=preview"`
}

// Register adds release 2's tools to server.
func Register(server *mcp.Server, opts *elicitrt.ToolOptions) {
	RegisterCleanup(server, record.Handler[Args, CleanupAnswers, CleanupStep]{Release: "v2", Tool: "cleanup"}, opts)
	RegisterScope(server, record.Handler[Args, ScopeAnswers, ScopeStep]{Release: "v2", Tool: "scope"}, opts)
	RegisterNotify(server, record.Handler[Args, NotifyAnswers, NotifyStep]{Release: "v2", Tool: "notify"}, opts)
	RegisterRename(server, record.Handler[Args, RenameAnswers, RenameStep]{Release: "v2", Tool: "rename"}, opts)
	RegisterPlace(server, record.Handler[Args, PlaceAnswers, PlaceStep]{Release: "v2", Tool: "place"}, opts)
	RegisterDrop(server, record.Handler[Args, DropAnswers, DropStep]{Release: "v2", Tool: "drop"}, opts)
	RegisterGrow(server, record.Handler[Args, GrowAnswers, GrowStep]{Release: "v2", Tool: "grow"}, opts)
	RegisterShrink(server, record.Handler[Args, ShrinkAnswers, ShrinkStep]{Release: "v2", Tool: "shrink"}, opts)
	RegisterSame(server, sameHandler{record.Handler[Args, SameAnswers, SameStep]{Release: "v2", Tool: "same"}}, opts)
	RegisterLaunch(server, launchHandler{record.Handler[Args, LaunchAnswers, LaunchStep]{Release: "v2", Tool: "launch"}}, opts)
}

type sameHandler struct {
	record.Handler[Args, SameAnswers, SameStep]
}

// PreviewOk is v1's in other words: handler code, which no digest covers.
func (sameHandler) PreviewOk(ctx context.Context, req *mcp.CallToolRequest, args Args, answers SameAnswers) string {
	return "v2 goes ahead once confirmed"
}

type launchHandler struct {
	record.Handler[Args, LaunchAnswers, LaunchStep]
}

func (launchHandler) PreviewOk(ctx context.Context, req *mcp.CallToolRequest, args Args, answers LaunchAnswers) string {
	return "v2 would launch all the rockets"
}
