package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// epoch is the tests' clock: they never depend on the day they run.
var epoch = time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)

func clock() time.Time { return epoch }

// report is a Reporter that keeps the statuses reported and counts the
// store errors.
type report struct {
	mu          sync.Mutex
	moves       []backend.TaskStatus
	storeErrors int
}

func (r *report) Log() *slog.Logger    { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func (r *report) StoreError(error)     { r.mu.Lock(); r.storeErrors++; r.mu.Unlock() }
func (r *report) LeaseError(err error) { r.StoreError(err) }
func (r *report) Moved(s backend.TaskStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.moves = append(r.moves, s)
}

// newJob stores a working task held by the run "run-1" and returns its Job.
func newJob(t *testing.T, restartable bool) (*Job, *backend.MemoryTaskStore, *report) {
	t.Helper()
	store := &backend.MemoryTaskStore{Now: clock}
	rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: "task-1", Tool: "brew", Status: backend.TaskWorking,
		CreatedAt: epoch, UpdatedAt: epoch, Expires: epoch.Add(time.Hour), Version: 1, LeaseUntil: epoch.Add(time.Minute), Runner: "run-1"}
	if err := store.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	ticket, refused := LimiterOf(&elicitrt.TaskLimits{}).Admit("", rec.ID)
	if refused != nil {
		t.Fatal(refused)
	}
	r := &report{}
	return &Job{Store: store, ID: rec.ID, Runner: rec.Runner, Ticket: ticket, Lease: time.Minute, Now: clock, Restartable: restartable, Report: r}, store, r
}

// begun begins watching job, as Work does before Run, for a test that
// asks without a Run; the watch ends with the test.
func begun(t *testing.T, job *Job) *Job {
	ctx, cancel := context.WithCancel(context.Background())
	job.begin(ctx, cancel)
	t.Cleanup(func() {
		cancel()
		job.pauseWatch()
	})
	return job
}

func get(t *testing.T, store backend.TaskStore, id string) *backend.TaskRecord {
	t.Helper()
	rec, err := store.Get(context.Background(), id)
	if err != nil || rec == nil {
		t.Fatalf("get %s: %v, %v", id, rec, err)
	}
	return rec
}

// TestJobAsksAndTakesTheAnswers: Ask turns the task input_required with
// the questions, Await takes the answers tasks/update files (in two
// updates), Answered turns it back to working and drops the message.
func TestJobAsksAndTakesTheAnswers(t *testing.T) {
	job, store, _ := newJob(t, false)
	begun(t, job)
	ctx := context.Background()
	asked := map[string]json.RawMessage{"milk": json.RawMessage(`{"message":"Milk?"}`), "size.2": json.RawMessage(`{"message":"Size?"}`)}
	version, err := job.Ask(ctx, asked, WaitingPrefix+"Milk?")
	if err != nil {
		t.Fatal(err)
	}
	rec := get(t, store, job.ID)
	if rec.Status != backend.TaskInputRequired || len(rec.InputRequests) != 2 || rec.StatusMessage != WaitingPrefix+"Milk?" || rec.Version != version {
		t.Fatalf("after Ask: %s %d requests %q version %d (Ask said %d)", rec.Status, len(rec.InputRequests), rec.StatusMessage, rec.Version, version)
	}
	answer := func(key, content string) {
		if _, err := store.Update(ctx, job.ID, func(r *backend.TaskRecord) error {
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[key] = json.RawMessage(content)
			return nil
		}); err != nil {
			t.Error(err)
		}
	}
	go func() {
		answer("milk", `{"action":"accept"}`)
		answer("other", `{"action":"accept"}`) // not asked: not taken
		answer("size.2", `{"action":"decline"}`)
	}()
	got, err := job.Await(ctx, map[string]int{"milk": 0, "size.2": 1}, version)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["size.2"]) != `{"action":"decline"}` {
		t.Fatalf("Await took %v", got)
	}
	if err := job.Answered(ctx); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, store, job.ID); rec.Status != backend.TaskWorking || rec.StatusMessage != "" {
		t.Fatalf("after Answered: %s %q", rec.Status, rec.StatusMessage)
	}
}

// TestJobWritesNothingOnceAnotherRunHoldsTheTask: a run whose task was
// taken over elsewhere writes nothing, and its asks end.
func TestJobWritesNothingOnceAnotherRunHoldsTheTask(t *testing.T) {
	job, store, _ := newJob(t, true)
	ctx := context.Background()
	if _, err := store.Update(ctx, job.ID, func(r *backend.TaskRecord) error { r.Runner = "run-2"; return nil }); err != nil {
		t.Fatal(err)
	}
	before := get(t, store, job.ID)
	if err := job.Progress(ctx, "halfway"); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Ask(ctx, map[string]json.RawMessage{"milk": json.RawMessage(`{}`)}, "waiting"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask of a task another run holds: %v, want context.Canceled", err)
	}
	if err := job.AppendAsk(ctx, backend.RecordedAsk{Steps: []string{"milk"}}); err != nil {
		t.Fatal(err)
	}
	if after := get(t, store, job.ID); after.Version != before.Version || after.StatusMessage != before.StatusMessage || after.Status != backend.TaskWorking {
		t.Fatalf("the run wrote to a task another run holds: version %d→%d, %q", before.Version, after.Version, after.StatusMessage)
	}
}

// TestReplayNext: the recorded replies in order, a divergence named, then
// nothing.
func TestReplayNext(t *testing.T) {
	r := &Replay{Asked: []backend.RecordedAsk{{Steps: []string{"milk"}, Outcome: "accept"}, {Steps: []string{"size"}, Outcome: "decline", Step: "size"}}}
	if rec, err := r.Next([]string{"milk"}); err != nil || rec == nil || rec.Outcome != "accept" {
		t.Fatalf("first: %v, %v", rec, err)
	}
	rec, err := r.Next([]string{"sugar"})
	var je *jsonrpc.Error
	if rec != nil || !errors.As(err, &je) || !strings.Contains(je.Message, "asked sugar where it had asked size") {
		t.Fatalf("diverged: %v, %v", rec, err)
	}
	if rec, err := r.Next([]string{"size"}); rec != nil || err != nil {
		t.Fatalf("past the record: %v, %v", rec, err)
	}
}

// TestAppendAskBounded: a record keeps at most MaxRecordedAsks replies,
// then is no longer restartable.
func TestAppendAskBounded(t *testing.T) {
	job, store, _ := newJob(t, true)
	ctx := context.Background()
	if _, err := store.Update(ctx, job.ID, func(r *backend.TaskRecord) error {
		r.Replay = &backend.TaskReplay{Asked: make([]backend.RecordedAsk, backend.MaxRecordedAsks-1)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := job.AppendAsk(ctx, backend.RecordedAsk{Steps: []string{"milk"}}); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, store, job.ID); rec.Replay == nil || len(rec.Replay.Asked) != backend.MaxRecordedAsks || rec.Replay.Asked[backend.MaxRecordedAsks-1].Steps[0] != "milk" {
		t.Fatalf("the last reply that fits was not kept: %+v", rec.Replay)
	}
	if err := job.AppendAsk(ctx, backend.RecordedAsk{Steps: []string{"size"}}); err != nil {
		t.Fatal(err)
	}
	if rec := get(t, store, job.ID); rec.Replay != nil {
		t.Fatalf("a full record still restartable: %d replies", len(rec.Replay.Asked))
	}
}

// TestClaim: a lapsed restartable task is claimed once per restart it has
// left; a held lease or a task out of restarts is not.
func TestClaim(t *testing.T) {
	_, store, _ := newJob(t, true)
	ctx := context.Background()
	if _, err := store.Update(ctx, "task-1", func(r *backend.TaskRecord) error { r.Replay = &backend.TaskReplay{Restarts: 1}; return nil }); err != nil {
		t.Fatal(err)
	}
	if rec, err := Claim(ctx, store, "task-1", 3, time.Minute, clock); !errors.Is(err, ErrLeaseHeld) || rec == nil || rec.Runner != "run-1" {
		t.Fatalf("claim of a held lease: %v, %v", rec, err)
	}
	later := func() time.Time { return epoch.Add(2 * time.Minute) }
	rec, err := Claim(ctx, store, "task-1", 3, time.Minute, later)
	if err != nil || rec.Replay.Restarts != 2 || rec.Runner == "run-1" || !rec.LeaseUntil.Equal(later().Add(time.Minute)) {
		t.Fatalf("claim of a lapsed lease: %+v, %v", rec, err)
	}
	muchLater := func() time.Time { return epoch.Add(time.Hour / 2) }
	if rec, err := Claim(ctx, store, "task-1", 2, time.Minute, muchLater); !errors.Is(err, ErrLeaseHeld) || rec.Replay.Restarts != 2 {
		t.Fatalf("claim past the restarts: %v, %v", rec, err)
	}
}

// TestWorkRecordsHowRunEnded: each way Run can end, as the record keeps it.
func TestWorkRecordsHowRunEnded(t *testing.T) {
	done := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "brewed"}}}
	for _, tc := range []struct {
		name   string
		run    func(context.Context) (*mcp.CallToolResult, error)
		status backend.TaskStatus
		want   string // in the result or the error
	}{
		{"result", func(context.Context) (*mcp.CallToolResult, error) { return done, nil }, backend.TaskCompleted, `"resultType":"complete"`},
		{"gave up", func(context.Context) (*mcp.CallToolResult, error) {
			return nil, &elicitrt.GaveUpError{Step: "milk", Tries: 3}
		}, backend.TaskCompleted, `"isError":true`},
		{"error", func(context.Context) (*mcp.CallToolResult, error) { return nil, errors.New("disk full") }, backend.TaskFailed, `"internal error"`},
		{"panic", func(context.Context) (*mcp.CallToolResult, error) { panic("boom") }, backend.TaskFailed, `"internal error"`},
		{"input required", func(context.Context) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{RequestState: "s"}, nil
		}, backend.TaskFailed, `"internal error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, store, r := newJob(t, false)
			ctx, cancel := context.WithCancel(context.Background())
			job.Work(ctx, cancel, tc.run)
			rec := get(t, store, job.ID)
			kept := string(rec.Result) + string(rec.Error)
			if rec.Status != tc.status || !strings.Contains(kept, tc.want) {
				t.Fatalf("%s %s, want %s with %s", rec.Status, kept, tc.status, tc.want)
			}
			if strings.Contains(kept, "disk full") || strings.Contains(kept, "boom") {
				t.Fatalf("the record tells the client what failed inside: %s", kept)
			}
			if r.moves[len(r.moves)-1] != tc.status {
				t.Fatalf("last status reported %v, want %s", r.moves, tc.status)
			}
		})
	}
}

// TestWorkKeepsACancelledTaskCancelled: a Run that returns a result after
// the task was cancelled leaves it cancelled.
func TestWorkKeepsACancelledTaskCancelled(t *testing.T) {
	job, store, _ := newJob(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	job.Work(ctx, cancel, func(ctx context.Context) (*mcp.CallToolResult, error) {
		if _, err := store.Update(ctx, job.ID, func(r *backend.TaskRecord) error { r.Status = backend.TaskCancelled; return nil }); err != nil {
			return nil, err
		}
		<-ctx.Done() // the watcher sees the cancel
		return &mcp.CallToolResult{}, nil
	})
	if rec := get(t, store, job.ID); rec.Status != backend.TaskCancelled || rec.Result != nil {
		t.Fatalf("%s %s, want cancelled without a result", rec.Status, rec.Result)
	}
}

// TestStopperAtShutdown: Drain hands a restartable task back (its lease
// lapses, it stays working) and fails any other with ErrServerShutDown.
func TestStopperAtShutdown(t *testing.T) {
	for _, restartable := range []bool{true, false} {
		job, store, _ := newJob(t, restartable)
		ctx, cancel := context.WithCancel(context.Background())
		stop := job.Stopper(cancel)
		job.Work(ctx, cancel, func(ctx context.Context) (*mcp.CallToolResult, error) {
			stop()
			<-ctx.Done()
			return nil, ctx.Err()
		})
		rec := get(t, store, job.ID)
		switch {
		case restartable && (rec.Status != backend.TaskWorking || !rec.LeaseUntil.Equal(releasedLease)):
			t.Errorf("restartable: %s, lease %v; want working, handed back", rec.Status, rec.LeaseUntil)
		case !restartable && (rec.Status != backend.TaskFailed || !strings.Contains(string(rec.Error), "shut down")):
			t.Errorf("not restartable: %s %s; want failed, shut down", rec.Status, rec.Error)
		}
	}
}
