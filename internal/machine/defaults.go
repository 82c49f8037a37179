package machine

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The defaults of this call (docs/reference/runtime.md, "Defaults of this call"): a
// form asked with values already in hand asks with them as the defaults of
// its properties, and takes them for the properties its answer leaves out.
// They are the prefilled properties the model supplied when they do not
// answer the step, overridden by the valid properties of the answer a
// re-ask corrects. A confirmation gets none from the arguments, and its
// confirming boolean none at all; a task's During steps get none.

// maxKeptLen bounds the JSON of the valid answers that every re-asked step
// of a flow keeps as its defaults, besides MaxAnswersLen, so that the
// state still fits in seal.MaxStateLen; a re-ask whose would not fit goes
// without them.
const maxKeptLen = 4 << 10

// callDefaults returns the defaults of this call for step j, or nil.
func (c *call) callDefaults(j int) map[string]any {
	step := &c.m.steps[j]
	if step.Mode != ModeForm || step.During {
		return nil
	}
	var d map[string]any
	if prefills(step) {
		d, _ = prefill(c.req.Params.Arguments, step.Prefill, step.PrefillNeeds)
	}
	for k, v := range c.st.Steps[j].Kept {
		if k == step.Confirm {
			continue // a yes is always the person's click
		}
		if d == nil {
			d = make(map[string]any, len(c.st.Steps[j].Kept))
		}
		d[k] = v
	}
	return d
}

// prefills reports whether step takes properties from the arguments: never
// a confirmation.
func prefills(step *Step) bool {
	return step.Prefill != nil && !step.Once && step.Confirm == ""
}

// withCallDefaults returns content with the defaults of this call for step
// j filled in where content leaves them out (content itself unchanged).
func (c *call) withCallDefaults(j int, content map[string]any) map[string]any {
	d := c.callDefaults(j)
	if len(d) == 0 {
		return content
	}
	filled := make(map[string]any, len(content)+len(d))
	for k, v := range d {
		filled[k] = v
	}
	for k, v := range content {
		filled[k] = v
	}
	return filled
}

// keepValid keeps, as step j's defaults for its next asking, the declared
// properties of content that err (the form decoder's) does not name, when
// they fit in maxKeptLen with the other steps' (none otherwise).
func (c *call) keepValid(j int, content map[string]any, err error) {
	t := &c.st.Steps[j]
	t.Kept = nil
	var ce *elicitrt.ContentError
	if !errors.As(err, &ce) || c.m.steps[j].During {
		return
	}
	kept := map[string]any{}
	for k, v := range c.m.declared(j, content) {
		if k != c.m.steps[j].Confirm && ce.Reason(k) == "" {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return
	}
	size := jsonSize(kept)
	for i := range c.st.Steps {
		if c.st.Steps[i].Kept != nil {
			size += jsonSize(c.st.Steps[i].Kept)
		}
	}
	if size <= maxKeptLen {
		t.Kept = kept
	}
}

// badPrefill says why the form's decoder refuses the prefilled content of
// step: every reason when the content answers the step (all), else the
// reasons of the properties it holds; "" when there is none.
func badPrefill(step *Step, content map[string]any, all bool) string {
	if len(content) == 0 {
		return ""
	}
	err := step.Check(content)
	if err == nil {
		return ""
	}
	var ce *elicitrt.ContentError
	if !errors.As(err, &ce) {
		if all {
			return strings.TrimPrefix(err.Error(), "invalid content: ")
		}
		return ""
	}
	var bad []elicitrt.FieldError
	for _, f := range ce.Fields {
		if _, held := content[f.Property]; all || held {
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return strings.TrimPrefix((&elicitrt.ContentError{Fields: bad}).Error(), "invalid content: ")
}

// withDefaults returns schema, a form's requestedSchema, with d's values as
// the defaults of its properties, the order of every key kept (a host shows
// the fields in it); schema itself is not modified. A property whose type
// is not one the spec allows a default on (string, number, integer,
// boolean, a multi-select array) is left as it is, and so is a schema that
// cannot be read.
func withDefaults(schema any, d map[string]any) any {
	raw, ok := schema.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(schema); err != nil {
			return schema
		}
	}
	root, ok := readObject(raw)
	i := root.index("properties")
	if !ok || i < 0 {
		return schema
	}
	props, ok := readObject(root[i].value)
	if !ok {
		return schema
	}
	for k := range props {
		if v, ok := d[props[k].key]; ok {
			props[k].value = withDefault(props[k].value, v)
		}
	}
	root[i].value = props.marshal()
	return json.RawMessage(root.marshal())
}

// withDefault returns the property schema prop with v as its default.
func withDefault(prop json.RawMessage, v any) json.RawMessage {
	p, ok := readObject(prop)
	t := p.index("type")
	if !ok || t < 0 {
		return prop
	}
	var typ string
	if json.Unmarshal(p[t].value, &typ) != nil || !strings.Contains(" string number integer boolean array ", " "+typ+" ") {
		return prop
	}
	b, err := json.Marshal(v)
	if err != nil {
		return prop
	}
	if i := p.index("default"); i >= 0 {
		p[i].value = b
	} else {
		p = append(p, member{"default", b})
	}
	return p.marshal()
}

// member is one key and value of a JSON object; object keeps their order.
type member struct {
	key   string
	value json.RawMessage
}

type object []member

// readObject reads a JSON object, its members in order.
func readObject(raw []byte) (object, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil {
			return nil, false
		}
		o = append(o, member{key, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return o, true
}

// index is the position of key in o, or -1.
func (o object) index(key string) int {
	for i := range o {
		if o[i].key == key {
			return i
		}
	}
	return -1
}

func (o object) marshal() json.RawMessage {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		b = append(append(append(b, k...), ':'), m.value...)
	}
	return append(b, '}')
}
