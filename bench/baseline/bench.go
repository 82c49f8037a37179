package baseline

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Decodable is a form's pointer type: it has a generated decoder.
type Decodable[T any] interface {
	*T
	DecodeElicit(content map[string]any) error
}

// Describer is a form type: it has a generated schema.
type Describer interface {
	ElicitSchema() json.RawMessage
	ElicitParams(message string) *mcp.ElicitParams
}

// Sinks keep the compiler from discarding benchmarked work.
var (
	sinkBytes []byte
)

// BenchDecode runs two sub-benchmarks decoding content: "generated", the
// form's DecodeElicit, and "jsonschema", the jsonschema-go baseline into M
// (the form type itself, or a mirror of it that encoding/json can fill).
// Both must accept content.
func BenchDecode[T any, P Decodable[T], M any](b *testing.B, schema json.RawMessage, content map[string]any) {
	b.Run("generated", func(b *testing.B) {
		var x T
		p := P(&x)
		if err := p.DecodeElicit(content); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := p.DecodeElicit(content); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema", func(b *testing.B) {
		d, err := NewDecoder[M](schema)
		if err != nil {
			b.Fatal(err)
		}
		var m M
		if err := d.Decode(content, &m); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := d.Decode(content, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchSchema runs the sub-benchmarks of a form's schema:
//
//	schema/ElicitSchema    the precomputed bytes
//	schema/jsonschema.For  jsonschema.For[T] plus json.Marshal
//	params/ElicitParams    ElicitParams(message) marshalled as sent
//	params/jsonschema.For  jsonschema.For[T] in an *mcp.ElicitParams, marshalled
func BenchSchema[T Describer](b *testing.B) {
	const message = "Please fill in the form."
	b.Run("schema/ElicitSchema", func(b *testing.B) {
		var t T
		b.ReportAllocs()
		for b.Loop() {
			sinkBytes = t.ElicitSchema()
		}
	})
	b.Run("schema/jsonschema.For", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			raw, err := Schema[T]()
			if err != nil {
				b.Fatal(err)
			}
			sinkBytes = raw
		}
	})
	b.Run("params/ElicitParams", func(b *testing.B) {
		var t T
		b.ReportAllocs()
		for b.Loop() {
			raw, err := json.Marshal(t.ElicitParams(message))
			if err != nil {
				b.Fatal(err)
			}
			sinkBytes = raw
		}
	})
	b.Run("params/jsonschema.For", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := jsonschema.For[T](nil)
			if err != nil {
				b.Fatal(err)
			}
			raw, err := json.Marshal(&mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: s})
			if err != nil {
				b.Fatal(err)
			}
			sinkBytes = raw
		}
	})
}
