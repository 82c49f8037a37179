package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Status notifications of tasks (SEP-2663): a client sends
// subscriptions/listen with notifications.taskIds and gets, on that
// stream, notifications/tasks carrying the task (the shape tasks/get
// answers) each time it changes. go-sdk v1.8.0 serves subscriptions/listen
// but knows no taskIds (its filter type drops the field) and cannot send
// a notification of a method it does not know, so the HTTPHandler offers
// such a listen request to ServeListen (its Listen hook), over
// streamable HTTP:
//
//   - it acknowledges (notifications/subscriptions/acknowledged) the task
//     ids that name a live task of the request's principal, and nothing
//     else: another user's task, an expired one and a made-up id are left
//     out, as are the other notification kinds asked in the same request
//     (a client that wants list changes too opens another stream);
//   - it sends each acknowledged task at once, then at every change, from
//     the task store (so a task running on another instance is followed
//     too);
//   - it ends the stream with the listen request's empty result once every
//     acknowledged task has ended (or expired), and when the client goes.
//
// A listen request without taskIds, or on a server without task tools, is
// the SDK's. Over stdio clients poll tasks/get (the SDK's own listen
// stream answers there, without taskIds in its acknowledgement).

const (
	notificationAcked      = "notifications/subscriptions/acknowledged"
	notificationTaskStatus = "notifications/tasks"
)

// listenRequest is what ServeListen reads of a subscriptions/listen.
type listenRequest struct {
	Meta          map[string]any `json:"_meta"`
	Notifications struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
}

// ServeListen serves req, a subscriptions/listen request the transport
// peeked from r, if it asks for taskIds on a server (getServer's for r)
// with task tools, and reports whether it did. It is the transport's
// Listen hook (internal/transport.Hooks), wired by runtime's
// NewHTTPHandler.
func ServeListen(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, getServer func(*http.Request) *mcp.Server) bool {
	var p listenRequest
	if json.Unmarshal(req.Params, &p) != nil || p.Notifications.TaskIDs == nil {
		return false
	}
	server := getServer(r)
	if server == nil {
		return false
	}
	v, ok := taskServices.Load(server)
	if !ok {
		return false
	}
	svc := v.(*taskService)
	fail := func(status int, e *jsonrpc.Error) bool {
		taskrun.WriteJSONRPCError(w, status, req.ID, e)
		return true
	}
	if !machine.DeclaresTasks(metaCapabilities(p.Meta)) {
		return fail(http.StatusBadRequest, machine.MissingTasksExtension())
	}
	if len(p.Notifications.TaskIDs) > taskrun.MaxListenTaskIDs {
		return fail(http.StatusOK, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("subscriptions/listen: at most %d taskIds", taskrun.MaxListenTaskIDs)})
	}
	principal := svc.callerOfHTTP(r)
	closeStream, refused := svc.limits.OpenStream(principal)
	if refused != nil {
		return fail(http.StatusOK, refused)
	}
	defer closeStream()
	ctx := r.Context()
	ids, first, err := svc.ownTasks(ctx, principal, p.Notifications.TaskIDs)
	if err != nil {
		svc.logger.Warn("elicitgen: task store", "method", taskrun.MethodListen, "err", err)
		return fail(http.StatusOK, machine.ErrInternal)
	}
	svc.streamTasks(ctx, w, req.ID, ids, first)
	return true
}

// streamTasks acknowledges ids on the event stream w, sends each task's
// notifications from its record in first on until every one has ended,
// then the request's result (unless the client went).
func (svc *taskService) streamTasks(ctx context.Context, w http.ResponseWriter, id jsonrpc.ID, ids []string, first []*backend.TaskRecord) {
	stream := &taskStream{w: w, flusher: asFlusher(w)}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.WriteHeader(http.StatusOK)
	stream.send(&jsonrpc.Request{Method: notificationAcked,
		Params: taskrun.MustJSON(map[string]any{"notifications": map[string]any{"taskIds": ids}})})
	var wg sync.WaitGroup
	for i, task := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc.follow(ctx, stream, task, first[i])
		}()
	}
	wg.Wait()
	if ctx.Err() == nil {
		stream.send(&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"resultType":"complete"}`)})
	}
}

// ownTasks returns, of the task ids asked for, those of principal's own
// tasks that the store knows, once each ([] when none), and their records.
func (svc *taskService) ownTasks(ctx context.Context, principal string, asked []string) (ids []string, recs []*backend.TaskRecord, err error) {
	ids = []string{}
	for _, id := range asked {
		if slices.Contains(ids, id) {
			continue
		}
		rec, err := svc.store.Get(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if rec != nil && rec.Principal == principal {
			ids = append(ids, id)
			recs = append(recs, rec)
		}
	}
	return ids, recs, nil
}

// follow sends the task's notifications from rec on, until it ends or
// expires, or the client goes. A change the client cannot see (a lease
// renewed) sends nothing; a lease that lapses fails the task.
func (svc *taskService) follow(ctx context.Context, stream *taskStream, id string, rec *backend.TaskRecord) {
	var seen []byte // what the client saw last, but for lastUpdatedAt
	for {
		n := taskNotification(rec)
		if key := noticeKey(n); !bytes.Equal(key, seen) {
			seen = key
			stream.send(&jsonrpc.Request{Method: notificationTaskStatus, Params: taskrun.MustJSON(n)})
		}
		if rec.Status.Terminal() {
			return
		}
		if rec = svc.next(ctx, id, rec); rec == nil {
			return
		}
	}
}

// next waits for the task's next version after rec's, or for its lease to
// lapse (then fails it), and returns it; nil when the task expired or the
// client went.
func (svc *taskService) next(ctx context.Context, id string, rec *backend.TaskRecord) *backend.TaskRecord {
	for {
		wctx, cancel := svc.untilLapse(ctx, rec)
		err := svc.store.Wait(wctx, id, rec.Version)
		cancel()
		if err != nil && ctx.Err() != nil {
			return nil
		}
		next, err := svc.store.Get(ctx, id)
		if err == nil && taskrun.LeaseLapsed(next, svc.now()) {
			next, err = svc.takeOver(ctx, next)
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			continue // an outage: Wait again
		case next == nil || next.Version != rec.Version:
			return next // nil: expired
		}
	}
}

// untilLapse is ctx ended, too, a little after rec's lease would lapse
// (its remaining time on the real clock).
func (svc *taskService) untilLapse(ctx context.Context, rec *backend.TaskRecord) (context.Context, context.CancelFunc) {
	if rec.LeaseUntil.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, rec.LeaseUntil.Sub(svc.now())+100*time.Millisecond)
}

// noticeKey is what n shows the client but for lastUpdatedAt: two
// notices with the same key differ only by a change it cannot see.
func noticeKey(n *TaskResult) []byte {
	x := *n
	x.LastUpdatedAt = ""
	return taskrun.MustJSON(&x)
}

// taskNotification is the params of notifications/tasks: the task as
// tasks/get shows it, without resultType.
func taskNotification(rec *backend.TaskRecord) *TaskResult {
	n := taskResult(rec, true)
	n.ResultType = ""
	return n
}

// taskStream writes server-sent events, one JSON-RPC message each.
type taskStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	flusher http.Flusher
}

func (s *taskStream) send(msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data)
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

func asFlusher(w http.ResponseWriter) http.Flusher {
	f, _ := w.(http.Flusher)
	return f
}

// callerOfHTTP is the principal of an HTTP request, as the machine names
// the principal of a tools/call (ToolOptions.Principal, else the verified
// bearer token's user).
func (svc *taskService) callerOfHTTP(r *http.Request) string {
	return machine.PrincipalOf(svc.principal, nil, nil, &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header})
}

// metaCapabilities are the client capabilities in a request's _meta.
func metaCapabilities(meta map[string]any) *mcp.ClientCapabilities {
	raw, ok := meta[mcp.MetaKeyClientCapabilities]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var caps mcp.ClientCapabilities
	if json.Unmarshal(b, &caps) != nil {
		return nil
	}
	return &caps
}
