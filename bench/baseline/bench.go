package baseline

import (
	"encoding/json"
	"maps"
	"runtime"
	"slices"
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

// Sinks keep the compiler from discarding benchmarked work: written, never
// read.
var (
	//lint:ignore U1000 a sink is only written
	sinkBytes []byte
	//lint:ignore U1000 a sink is only written
	sinkInt int
)

// bytesPerRun is the number of bytes f allocates, on average over 1,000
// runs, rounded to a whole word.
func bytesPerRun(f func()) uint64 {
	const runs = 1000
	f() // warm up
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc + runs*4) / runs / 8 * 8
}

// BenchDecode runs three sub-benchmarks decoding content: "generated", the
// form's DecodeElicit; "floor", the map lookups and allocation alone that
// any decoder of it pays; and "jsonschema", the jsonschema-go baseline into
// M (the form type itself, or a mirror of it that encoding/json can fill).
// Both decoders must accept content.
func BenchDecode[T any, P Decodable[T], M any](b *testing.B, schema json.RawMessage, content map[string]any) {
	var props struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &props); err != nil {
		b.Fatal(err)
	}
	multiSelects := 0
	for _, p := range props.Properties {
		if p.Type == "array" {
			multiSelects++
		}
	}
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
		// The allocation budget of the target: one per
		// multi-select (bench/ratios reads it from here).
		b.ReportMetric(float64(multiSelects), "multi-selects")
	})
	b.Run("floor", func(b *testing.B) {
		// Less than any decoder of this content into this form pays: a
		// lookup of each property in the SDK's map, and as many bytes as
		// the generated decoder allocates, in one object without pointers
		// (cheaper to allocate and to collect than the values a decoder
		// makes, which hold strings). The checks cost the rest.
		keys := slices.Sorted(maps.Keys(props.Properties))
		var x T
		p := P(&x)
		size := int(bytesPerRun(func() { _ = p.DecodeElicit(content) }))
		b.ReportAllocs()
		for b.Loop() {
			found := 0
			for _, k := range keys {
				if _, ok := content[k]; ok {
					found++
				}
			}
			sinkInt = found
			if size > 0 {
				sinkBytes = make([]byte, size)
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

// DecodeBoth decodes content with the form's DecodeElicit into *x and with
// the jsonschema-go baseline into the M it returns, reporting an error of
// either: the benchmarks' tests use it to check that both decoders accept
// the content they are measured on, and agree on it.
func DecodeBoth[T Describer, P Decodable[T], M any](t testing.TB, x P, content map[string]any) M {
	t.Helper()
	var m M
	if err := x.DecodeElicit(content); err != nil {
		t.Errorf("%T: generated: %v", x, err)
	}
	var form T
	d, err := NewDecoder[M](form.ElicitSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(content, &m); err != nil {
		t.Errorf("%T: jsonschema-go: %v", x, err)
	}
	return m
}
