package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/bench/baseline"
)

// Accepted content of the fixture forms, as the SDK hands it over.
var (
	userNameContent      = map[string]any{"name": "Ada"}
	favoriteColorContent = map[string]any{"color": "green"}
	confirmContent       = map[string]any{"ok": true}
)

// BenchmarkDecode measures the fixture forms' decoders against the
// jsonschema-go baseline (bench/run.sh runs it; bench/ratios prints the
// table).
func BenchmarkDecode(b *testing.B) {
	b.Run("conformance.UserName", func(b *testing.B) {
		baseline.BenchDecode[UserName, *UserName, UserName](b, UserName{}.ElicitSchema(), userNameContent)
	})
	b.Run("conformance.FavoriteColor", func(b *testing.B) {
		baseline.BenchDecode[FavoriteColor, *FavoriteColor, FavoriteColor](b, FavoriteColor{}.ElicitSchema(), favoriteColorContent)
	})
	b.Run("conformance.Confirm", func(b *testing.B) {
		baseline.BenchDecode[Confirm, *Confirm, Confirm](b, Confirm{}.ElicitSchema(), confirmContent)
	})
}

// TestBenchedContents keeps the benchmarks honest: both decoders accept the
// content they are measured on, and agree on it.
func TestBenchedContents(t *testing.T) {
	var u UserName
	if uj := baseline.DecodeBoth[UserName, *UserName, UserName](t, &u, userNameContent); u != uj || u.Name != "Ada" {
		t.Errorf("UserName: generated %+v, jsonschema-go %+v", u, uj)
	}
	var f FavoriteColor
	if fj := baseline.DecodeBoth[FavoriteColor, *FavoriteColor, FavoriteColor](t, &f, favoriteColorContent); f != fj || f.Color != "green" {
		t.Errorf("FavoriteColor: generated %+v, jsonschema-go %+v", f, fj)
	}
	var c Confirm
	if cj := baseline.DecodeBoth[Confirm, *Confirm, Confirm](t, &c, confirmContent); c != cj || !c.OK {
		t.Errorf("Confirm: generated %+v, jsonschema-go %+v", c, cj)
	}
}
