// Package v1 is release N of the server of examples/upgrade: the tools as
// they were before a deploy. Package v2 is release N+1, whose tools of the
// same names differ in the ways a deploy changes a tool (steps reordered,
// replaced, a field renamed, an enum value removed, a message reworded, a
// step inserted or removed), or only in what no person sees.
package v1

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

// Region is where to run.
type Region string

const (
	Europe  Region = "eu"
	America Region = "us"
	Asia    Region = "asia"
)

// RegionChoice asks for a region.
type RegionChoice struct {
	Region Region `elicit:"region,required"`
}

// Args are every tool's arguments.
type Args struct {
	Service string `json:"service,omitempty"`
}

// Cleanup asks whether to purge, then whether to archive.
//
//elicit:tool cleanup
type Cleanup struct {
	Args    Args
	Purge   YesNo `elicit:"purge,message=Purge the whole database?"`
	Archive YesNo `elicit:"archive,message=Archive the old logs?"`
}

// Scope asks for the scope, then for a confirmation.
//
//elicit:tool scope
type Scope struct {
	Args  Args
	Scope Env `elicit:"scope,message=Which environment?"`
	Ok    OK  `elicit:"ok,message=Go ahead?,confirm"`
}

// Notify asks for the environment, then whether to notify.
//
//elicit:tool notify
type Notify struct {
	Args   Args
	Target Env   `elicit:"target,message=Which environment?"`
	Notify YesNo `elicit:"notify,message=Post in #deployments?"`
}

// Rename asks for the environment (a field v2 renames), then to go on.
//
//elicit:tool rename
type Rename struct {
	Args   Args
	Target Env `elicit:"target,message=Which environment?"`
	Ok     OK  `elicit:"ok,message=Go ahead?,confirm"`
}

// Place asks for a region (v2 drops asia), then to go on.
//
//elicit:tool place
type Place struct {
	Args   Args
	Region RegionChoice `elicit:"region,message=Which region?"`
	Ok     OK           `elicit:"ok,message=Go ahead?,confirm"`
}

// Drop asks one confirmation, which v2 rewords.
//
//elicit:tool drop
type Drop struct {
	Args Args
	Ok   OK `elicit:"ok,message=Delete 3 rows?,confirm"`
}

// Grow asks one question; v2 adds a second.
//
//elicit:tool grow
type Grow struct {
	Args  Args
	First YesNo `elicit:"first,message=First?"`
}

// Shrink asks two questions; v2 drops the second.
//
//elicit:tool shrink
type Shrink struct {
	Args   Args
	First  YesNo `elicit:"first,message=First?"`
	Second YesNo `elicit:"second,message=Second?"`
}

// Same asks for the environment, then a confirmation with a preview for
// clients that cannot ask; v2 changes only its description and handler.
//
//elicit:tool same
type Same struct {
	Args   Args
	Target Env `elicit:"target,message=Which environment?,prefill,fallback=arguments"`
	Ok     OK  `elicit:"ok,message=Go ahead?,confirm,once,fallback=preview"`
}

// Launch is a confirmation with a preview, which v2 rewords.
//
//elicit:tool launch
type Launch struct {
	Args Args
	Ok   OK `elicit:"ok,message=Launch the rocket?,once,confirm,fallback=preview"`
}

// Register adds release 1's tools to server.
func Register(server *mcp.Server, opts *elicitrt.ToolOptions) {
	RegisterCleanup(server, record.Handler[Args, CleanupAnswers, CleanupStep]{Release: "v1", Tool: "cleanup"}, opts)
	RegisterScope(server, record.Handler[Args, ScopeAnswers, ScopeStep]{Release: "v1", Tool: "scope"}, opts)
	RegisterNotify(server, record.Handler[Args, NotifyAnswers, NotifyStep]{Release: "v1", Tool: "notify"}, opts)
	RegisterRename(server, record.Handler[Args, RenameAnswers, RenameStep]{Release: "v1", Tool: "rename"}, opts)
	RegisterPlace(server, record.Handler[Args, PlaceAnswers, PlaceStep]{Release: "v1", Tool: "place"}, opts)
	RegisterDrop(server, record.Handler[Args, DropAnswers, DropStep]{Release: "v1", Tool: "drop"}, opts)
	RegisterGrow(server, record.Handler[Args, GrowAnswers, GrowStep]{Release: "v1", Tool: "grow"}, opts)
	RegisterShrink(server, record.Handler[Args, ShrinkAnswers, ShrinkStep]{Release: "v1", Tool: "shrink"}, opts)
	RegisterSame(server, sameHandler{record.Handler[Args, SameAnswers, SameStep]{Release: "v1", Tool: "same"}}, opts)
	RegisterLaunch(server, launchHandler{record.Handler[Args, LaunchAnswers, LaunchStep]{Release: "v1", Tool: "launch"}}, opts)
}

type sameHandler struct {
	record.Handler[Args, SameAnswers, SameStep]
}

func (sameHandler) PreviewOk(ctx context.Context, req *mcp.CallToolRequest, args Args, answers SameAnswers) string {
	return "v1 would go ahead"
}

type launchHandler struct {
	record.Handler[Args, LaunchAnswers, LaunchStep]
}

func (launchHandler) PreviewOk(ctx context.Context, req *mcp.CallToolRequest, args Args, answers LaunchAnswers) string {
	return "v1 would launch the rocket"
}
