package taskrun

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A task asks in rounds: the interpreter builds the input requests of the
// steps it asks (their keys count a step's asks: "milk", then "milk.2"),
// Ask turns the task input_required with them, tasks/update files the
// answers in the record, Await takes them, and the interpreter judges
// them: the steps to ask again make the next round; once none is left
// (or one was declined) Answered turns the task back to working.

// Ask turns the task input_required with the input requests asked, each
// by its key, and its status message (WaitingPrefix and the question); it
// returns the record's version, from which Await waits. Answers already
// filed under a key asked again are kept (after a restart, an answer given
// while no instance ran the task counts). A task that ended meanwhile is
// ctx's error, or context.Canceled.
func (j *Job) Ask(ctx context.Context, asked map[string]json.RawMessage, message string) (uint64, error) {
	rec, err := j.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errEnded
		}
		rec.Status, rec.InputRequests, rec.Answers = backend.TaskInputRequired, asked, KeepAnswers(rec.Answers, asked)
		rec.StatusMessage = message
		return nil
	})
	if err != nil || rec == nil {
		return 0, ended(ctx, err)
	}
	return rec.Version, nil
}

// Await takes the answers to keys as tasks/update files them, from the
// record's version on, until every key has one. Meanwhile it watches the
// task instead of the watcher (watch.go): Run's goroutine is the task's
// only one while it waits.
func (j *Job) Await(ctx context.Context, keys map[string]int, version uint64) (map[string]json.RawMessage, error) {
	j.pauseWatch()
	defer j.startWatch()
	got := make(map[string]json.RawMessage, len(keys))
	for {
		rec, err := j.update(ctx, func(rec *backend.TaskRecord) error {
			if rec.Status.Terminal() {
				return errEnded
			}
			for k, v := range rec.Answers {
				if _, ok := keys[k]; ok {
					got[k] = v
				}
			}
			rec.Answers = nil
			return nil
		})
		if err != nil || rec == nil {
			j.overWhileWaiting(ctx, err)
			return nil, ended(ctx, err)
		}
		if len(got) == len(keys) {
			return got, nil
		}
		if j.renewDue(ctx) {
			continue // and read again
		}
		if err := j.waitChange(ctx, rec.Version); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			j.storeDown(ctx, err) // and read again
		}
	}
}

// Answered turns the task, whose question was answered, back to working.
func (j *Job) Answered(ctx context.Context) error {
	_, err := j.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status == backend.TaskInputRequired {
			rec.Status = backend.TaskWorking
		}
		return nil
	})
	if errors.Is(err, errEnded) {
		return nil
	}
	return err
}

// KeepAnswers are the answers under the keys asked again: after a restart
// the first Ask past the record asks under the keys the record was asking,
// and an answer to one that came while no instance ran the task counts.
func KeepAnswers(answers, asked map[string]json.RawMessage) map[string]json.RawMessage {
	var kept map[string]json.RawMessage
	for k, v := range answers {
		if _, ok := asked[k]; ok {
			if kept == nil {
				kept = map[string]json.RawMessage{}
			}
			kept[k] = v
		}
	}
	return kept
}
