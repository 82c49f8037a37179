package machine

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/elicitgen/elicitgen/internal/refuse"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// shownReason is why content was refused, in the words the form showed
// the person (an enum's titles, not its values).
func shownReason(err error) string {
	var ce *elicitrt.ContentError
	if errors.As(err, &ce) {
		return ce.Shown()
	}
	return strings.TrimPrefix(err.Error(), "invalid content: ")
}

// MaxAnswersLen bounds the JSON of the answers a flow keeps between
// rounds, so that its state always fits in seal.MaxStateLen: an answer that
// would pass it is asked again with the reason.
const MaxAnswersLen = 32 << 10

// maxReasonLen bounds the reasons and the echoed values a state keeps.
const maxReasonLen = 256

// bounded cuts s to at most maxReasonLen bytes, on a rune boundary.
func bounded(s string) string { return refuse.Cut(s, maxReasonLen) }

// declared returns the properties of content that form step j declares:
// what a client adds besides them is never kept.
func (m *Machine) declared(j int, content map[string]any) map[string]any {
	props := m.props[j]
	if props == nil {
		return content
	}
	kept := make(map[string]any, len(content))
	for k, v := range content {
		if _, ok := props[k]; ok {
			kept[k] = v
		}
	}
	return kept
}

func answersSize(a Answers) int {
	n := 0
	for _, c := range a {
		if c != nil {
			n += jsonSize(c)
		}
	}
	return n
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return math.MaxInt32
	}
	return len(b)
}

// inputKey is the input request key of the n-th asking of a step: the
// step's key the first time ("user_name"), then "user_name.2", ... Step keys
// contain no dot, so keys are unique within a request and never reused
// across rounds.
func inputKey(step string, n int) string {
	if n <= 1 {
		return step
	}
	return step + "." + strconv.Itoa(n)
}

// parseInputKey is inputKey's inverse: the step key and the asking a key
// names ("user_name.2": "user_name", 2).
func parseInputKey(key string) (step string, n int) {
	if i := strings.LastIndexByte(key, '.'); i > 0 {
		if k, err := strconv.Atoi(key[i+1:]); err == nil && k > 1 {
			return key[:i], k
		}
	}
	return key, 1
}

// prefill returns the form's properties found in the tool's arguments (nil
// when there is none), and whether they answer the step: every needed
// property present, and at least one property.
func prefill(raw json.RawMessage, props, needs []string) (map[string]any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, false
	}
	var content map[string]any
	for _, p := range props {
		if v, ok := args[p]; ok && v != nil {
			if content == nil {
				content = make(map[string]any, len(props))
			}
			content[p] = v
		}
	}
	for _, p := range needs {
		if v, ok := args[p]; !ok || v == nil {
			return content, false
		}
	}
	return content, len(content) > 0
}
