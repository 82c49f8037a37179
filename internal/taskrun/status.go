package taskrun

import (
	"strings"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A task's status message says what is true now. While a task waits for
// an answer its message is WaitingPrefix and the question (whatever the
// handler's Progress said before it asked). Once tasks/update has the
// answers in, the task is working and says Resuming until its run takes
// them up, so a task whose instance stopped, before its lease runs out and
// another takes it over, says it resumes rather than that it waits for an
// answer already given. Once its run has the answer, declined or
// cancelled too, or the task has ended, neither message stays.

// WaitingPrefix begins the status message of a task that waits for an
// answer: "Waiting for your answer: Include the salaries section?".
const WaitingPrefix = "Waiting for your answer: "

// Resuming is the status message tasks/get shows for a task whose
// questions are all answered, before an instance takes the answers up.
const Resuming = "Your answer is in: the task resumes shortly."

// NoLongerWaiting drops rec's waiting (or resuming) message once rec no
// longer waits: the run's own updates and a task's end call it.
func NoLongerWaiting(rec *backend.TaskRecord) {
	if rec.Status != backend.TaskInputRequired && (strings.HasPrefix(rec.StatusMessage, WaitingPrefix) || rec.StatusMessage == Resuming) {
		rec.StatusMessage = ""
	}
}

// AnswersIn is what tasks/update does to rec once its every question has
// its answer: working, and resuming until the run takes the answers up.
func AnswersIn(rec *backend.TaskRecord) {
	rec.Status, rec.InputRequests = backend.TaskWorking, nil
	if rec.StatusMessage == "" || strings.HasPrefix(rec.StatusMessage, WaitingPrefix) {
		rec.StatusMessage = Resuming
	}
}

// SaysWhatIsTrue is change, then NoLongerWaiting.
func SaysWhatIsTrue(change func(*backend.TaskRecord) error) func(*backend.TaskRecord) error {
	return func(rec *backend.TaskRecord) error {
		if err := change(rec); err != nil {
			return err
		}
		NoLongerWaiting(rec)
		return nil
	}
}
