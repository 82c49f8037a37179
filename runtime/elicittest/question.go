package elicittest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reasonMark begins the reason the machine adds to the message of a step
// asked again after an invalid answer.
const reasonMark = "\n\nPlease correct: "

// Question is one question the person was shown.
type Question struct {
	// Key is the input key: the step's key the first time it is asked,
	// then "key.2", "key.3"... On 2025-11-25 the kit learns the step from
	// the server's hooks; empty when they did not say.
	Key string
	// Step is the step's key (Key without its ".N").
	Step string
	// Message is the message shown, without a re-ask's reason.
	Message string
	// Reason is the reason a step is asked again after an invalid
	// answer ("environment: must be one of ..."); empty otherwise.
	Reason string
	// Mode is "form" or "url"; URL is the URL of a url step.
	Mode, URL string
	// Properties are the requested schema's properties, by name (the
	// SDK's client decodes the schema into a map, which keeps no order).
	Properties []Property
	// Params are the elicitation's params as the client received them.
	Params *mcp.ElicitParams
}

// Property is one property of a form's requested schema.
type Property struct {
	// Name is the property's name; Type its JSON type ("string",
	// "boolean"...); Title and Description what a host labels it with.
	Name, Type, Title, Description string
	// Default is the default shown, nil when there is none.
	Default any
	// Required reports whether the schema lists it as required.
	Required bool
}

// Property returns the property named name.
func (q *Question) Property(name string) (Property, bool) {
	for _, p := range q.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

// Names returns the properties' names, in Properties' order.
func (q *Question) Names() []string {
	names := make([]string, len(q.Properties))
	for i, p := range q.Properties {
		names[i] = p.Name
	}
	return names
}

// String describes the question for a failure message.
func (q *Question) String() string {
	key := q.Key
	if key == "" {
		key = "(step not reported)"
	}
	s := fmt.Sprintf("%s %q", key, q.Message)
	if q.Mode == "url" {
		return s + " (url step)"
	}
	s += " with properties " + strings.Join(q.Names(), ", ")
	if q.Reason != "" {
		s += fmt.Sprintf(", asked again: %q", q.Reason)
	}
	return s
}

// newQuestion reads params, asked under key.
func newQuestion(key string, p *mcp.ElicitParams) *Question {
	q := &Question{Key: key, Step: stepOf(key), Mode: p.Mode, URL: p.URL, Params: p}
	if q.Mode == "" {
		q.Mode = "form"
	}
	q.Message, q.Reason, _ = strings.Cut(p.Message, reasonMark)
	q.Reason = strings.TrimSuffix(q.Reason, ".")
	q.Properties = properties(p.RequestedSchema)
	return q
}

// stepOf returns the step key of an input key ("target.2": "target").
func stepOf(key string) string {
	if i := strings.LastIndexByte(key, '.'); i > 0 {
		return key[:i]
	}
	return key
}

// property is a property as a schema writes it; Type stays "" for a
// list of types.
type property struct {
	Type               json.RawMessage
	Title, Description string
	Default            any
}

// properties reads a requested schema's properties, sorted by name.
func properties(schema any) []Property {
	raw, err := json.Marshal(schema)
	if err != nil || schema == nil {
		return nil
	}
	var s struct {
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var ps []Property
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		var typ string
		json.Unmarshal(p.Type, &typ)
		ps = append(ps, Property{Name: name, Type: typ, Title: p.Title, Description: p.Description,
			Default: p.Default, Required: slices.Contains(s.Required, name)})
	}
	return ps
}
