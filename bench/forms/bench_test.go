package forms

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/bench/baseline"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// fiveContent and twelveContent are accepted content as the SDK hands it
// over (numbers as float64, arrays as []any), every property present.
var (
	fiveContent = map[string]any{
		"name": "Ada Lovelace", "age": 36.0, "score": 97.5, "active": false, "comment": "First programmer.",
	}
	twelveContent = map[string]any{
		"title": "Speed up the decoder", "email": "ada@example.com", "homepage": "https://example.com/ada",
		"due": "2026-08-01", "start": "2026-07-28T09:30:00Z", "priority": "high", "color": "green",
		"labels": []any{"bug", "perf"}, "count": 3.0, "budget": 1500.5, "public": true, "notes": "Measure first.",
	}
)

// decodeFiveByHand is the hand-written decoder the generated one is
// measured against: the same checks, written directly for the content the
// SDK produces (float64 numbers only), every bad property reported.
func decodeFiveByHand(content map[string]any, x *Five) error {
	var v Five
	var errs []elicitrt.FieldError
	if raw, ok := content["name"]; !ok {
		errs = append(errs, elicitrt.FieldError{Property: "name", Reason: "is required"})
	} else if s, ok := raw.(string); !ok {
		errs = append(errs, elicitrt.FieldError{Property: "name", Reason: "must be a string"})
	} else if n := utf8.RuneCountInString(s); n < 1 || n > 40 {
		errs = append(errs, elicitrt.FieldError{Property: "name", Reason: "must have 1 to 40 characters"})
	} else {
		v.Name = s
	}
	if raw, ok := content["age"]; ok {
		if f, ok := raw.(float64); !ok {
			errs = append(errs, elicitrt.FieldError{Property: "age", Reason: "must be an integer"})
		} else if f != math.Trunc(f) {
			errs = append(errs, elicitrt.FieldError{Property: "age", Reason: "must be a whole number"})
		} else if f < 0 || f > 150 {
			errs = append(errs, elicitrt.FieldError{Property: "age", Reason: "must be an integer from 0 to 150"})
		} else {
			v.Age = int(f)
		}
	}
	if raw, ok := content["score"]; ok {
		if f, ok := raw.(float64); !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			errs = append(errs, elicitrt.FieldError{Property: "score", Reason: "must be a number"})
		} else if f < 0 || f > 100 {
			errs = append(errs, elicitrt.FieldError{Property: "score", Reason: "must be a number from 0 to 100"})
		} else {
			v.Score = f
		}
	}
	v.Active = true
	if raw, ok := content["active"]; ok {
		if b, ok := raw.(bool); !ok {
			errs = append(errs, elicitrt.FieldError{Property: "active", Reason: "must be a boolean"})
		} else {
			v.Active = b
		}
	}
	if raw, ok := content["comment"]; ok {
		if s, ok := raw.(string); !ok {
			errs = append(errs, elicitrt.FieldError{Property: "comment", Reason: "must be a string"})
		} else if utf8.RuneCountInString(s) > 200 {
			errs = append(errs, elicitrt.FieldError{Property: "comment", Reason: "must have at most 200 characters"})
		} else {
			v.Comment = s
		}
	}
	if errs != nil {
		return &elicitrt.ContentError{Fields: errs}
	}
	*x = v
	return nil
}

// TestBenchedDecodersAgree keeps the benchmarks honest: on the benchmark
// content the three decoders give the same value, and on bad content the
// generated and hand-written ones reject the same properties.
func TestBenchedDecodersAgree(t *testing.T) {
	var gen, hand, base Five
	if err := gen.DecodeElicit(fiveContent); err != nil {
		t.Fatal(err)
	}
	if err := decodeFiveByHand(fiveContent, &hand); err != nil {
		t.Fatal(err)
	}
	d, err := baseline.NewDecoder[Five](Five{}.ElicitSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Decode(fiveContent, &base); err != nil {
		t.Fatal(err)
	}
	if gen != hand || gen != base {
		t.Fatalf("generated %+v, hand %+v, baseline %+v", gen, hand, base)
	}
	for _, c := range []map[string]any{
		{},
		{"name": "", "age": 1.5, "score": 101.0, "active": "yes", "comment": 3.0},
		{"name": 7.0, "age": -1.0, "score": "x", "active": nil},
		{"name": "ok", "age": 151.0, "score": math.NaN()},
	} {
		errGen, errHand := gen.DecodeElicit(c), decodeFiveByHand(c, &hand)
		var ceGen, ceHand *elicitrt.ContentError
		if !errors.As(errGen, &ceGen) || !errors.As(errHand, &ceHand) || !reflect.DeepEqual(ceGen.Fields, ceHand.Fields) {
			t.Errorf("%v: generated %v, hand %v", c, errGen, errHand)
		}
		if err := d.Decode(c, &base); err == nil {
			t.Errorf("%v: baseline accepted", c)
		}
	}

	var g12, b12 Twelve
	if err := g12.DecodeElicit(twelveContent); err != nil {
		t.Fatal(err)
	}
	d12, err := baseline.NewDecoder[Twelve](Twelve{}.ElicitSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := d12.Decode(twelveContent, &b12); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g12, b12) {
		t.Fatalf("generated %+v\nbaseline  %+v", g12, b12)
	}
	if g12.Start == nil || !g12.Start.Equal(time.Date(2026, 7, 28, 9, 30, 0, 0, time.UTC)) || len(g12.Labels) != 2 {
		t.Fatalf("got %+v", g12)
	}
}

func BenchmarkDecode(b *testing.B) {
	b.Run("bench.Five", func(b *testing.B) {
		baseline.BenchDecode[Five, *Five, Five](b, Five{}.ElicitSchema(), fiveContent)
		b.Run("hand", func(b *testing.B) {
			var x Five
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeFiveByHand(fiveContent, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("bench.Twelve", func(b *testing.B) {
		baseline.BenchDecode[Twelve, *Twelve, Twelve](b, Twelve{}.ElicitSchema(), twelveContent)
	})
}

func BenchmarkSchema(b *testing.B) {
	b.Run("bench.Five", baseline.BenchSchema[Five])
	b.Run("bench.Twelve", baseline.BenchSchema[Twelve])
}
