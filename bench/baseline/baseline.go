// Package baseline is what elicitgen's benchmarks measure generated code
// against: decoding and describing a form the way a Go author does it
// without elicitgen, with github.com/google/jsonschema-go.
//
// It is benchmark support, not an API.
package baseline

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Decoder decodes accepted elicitation content into a T: the schema is
// resolved once, then every Decode validates the content against it and
// re-marshals it into a fresh T through encoding/json.
type Decoder[T any] struct {
	schema *jsonschema.Resolved
}

// NewDecoder resolves schema, a JSON Schema such as a form's requestedSchema.
// The benchmarks give it the schema elicitgen generated, so that both sides
// check the same constraints (jsonschema-go does not check formats; the
// generated decoders do).
func NewDecoder[T any](schema json.RawMessage) (*Decoder[T], error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("baseline: schema: %w", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("baseline: resolving: %w", err)
	}
	return &Decoder[T]{schema: r}, nil
}

// Decode validates content and, when it is valid, stores it in *x.
func (d *Decoder[T]) Decode(content map[string]any, x *T) error {
	if err := d.schema.Validate(content); err != nil {
		return err
	}
	b, err := json.Marshal(content)
	if err != nil {
		return err
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*x = v
	return nil
}

// Schema is the schema of T as jsonschema-go infers it (jsonschema.For),
// marshalled: what a Go author sends as a requestedSchema without elicitgen.
func Schema[T any]() (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}
