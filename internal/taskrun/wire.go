package taskrun

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Method names of the extension.
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksUpdate = "tasks/update"
	MethodTasksCancel = "tasks/cancel"
	// MethodListen is the method of a status stream request.
	MethodListen = "subscriptions/listen"
)

// MaxListenTaskIDs bounds the task ids one subscriptions/listen follows;
// more is an invalid-params error.
const MaxListenTaskIDs = 64

// A TaskSlot is where a tools/call's machine leaves the task it created,
// for the tasks middleware (internal/tasks) to answer with a
// CreateTaskResult. The middleware puts one in the call's context
// (WithTaskSlot); a call without one never becomes a task.
type TaskSlot struct{ Created *backend.TaskRecord }

type taskSlotKey struct{}

// WithTaskSlot returns ctx carrying s.
func WithTaskSlot(ctx context.Context, s *TaskSlot) context.Context {
	return context.WithValue(ctx, taskSlotKey{}, s)
}

func SlotFrom(ctx context.Context) *TaskSlot {
	s, _ := ctx.Value(taskSlotKey{}).(*TaskSlot)
	return s
}

// MustJSON is v as JSON, or {} when it cannot be.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// WriteJSONRPCError answers one JSON-RPC error with the HTTP status.
func WriteJSONRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	if err != nil {
		data = nil
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
