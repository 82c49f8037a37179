package machine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Releases side by side (docs/guide/deploys.md): a state, a confirmation token
// or a task record opens as answers only under the questions it was
// sealed for. Each step of a generated table carries the digest of what
// the person is shown and what the answer means (Step.Digest, computed by
// the generator); the machine combines them, with the keys, into the
// tool's questions digest once, and seals it into everything it hands
// out. A retry sealed under another digest starts the flow again from the
// first step, with ToolChangedNote; a token made under another is refused;
// a task record of another is not replayed (ErrToolChanged).

// ToolChangedNote begins the first question of a flow started again
// because its state was sealed for other questions: another release of
// the tool, during a rolling deploy.
const ToolChangedNote = "This tool changed while you were answering, so its questions start again.\n\n"

// QuestionsDigest is the questions digest of a step table: its steps'
// keys and digests (Step.Digest), in order, combined. The machine seals it
// into every state, confirmation token and task record it writes.
func QuestionsDigest(steps []Step) string { return questionsDigest(steps) }

// questionsDigest combines the keys and digests of steps, in order.
func questionsDigest(steps []Step) string {
	h := sha256.New()
	field := func(v string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(v))))
		h.Write([]byte(v))
	}
	field("elicitgen questions v1")
	h.Write(binary.AppendUvarint(nil, uint64(len(steps))))
	for i := range steps {
		field(steps[i].Key)
		field(steps[i].Digest)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ErrToolChanged fails a restarted task whose record was written for other
// questions than this release's tool asks, or whose recorded answers no
// longer answer them: its answers are never applied to other questions.
var ErrToolChanged = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "this task was started by another version of the tool, whose questions differ, and its server stopped: it cannot go on with the answers given then; call the tool again"}

// startAgain makes the call, whose state was sealed for other questions,
// start its flow from the first step: nothing of the state is kept but the
// count of rounds (so that two releases handing one flow back and forth
// still end within MaxRounds), and the first question says why.
func (c *call) startAgain() {
	n := len(c.m.steps)
	c.st = flowState{Questions: c.m.questions, Answers: make(Answers, n), Steps: make([]stepState, n)}
	c.restarted = true
	c.log().Info("elicitgen: requestState sealed for other questions (another release of the tool): asking again from the first step")
}
