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
	// The tasks fixtures' forms, asked while a task runs.
	deleteContent      = map[string]any{"confirm": true}
	taskNameContent    = map[string]any{"name": "partial-1"}
	taskConfirmContent = map[string]any{"confirm": false}
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
	b.Run("conformance.DeleteConfirmation", func(b *testing.B) {
		baseline.BenchDecode[DeleteConfirmation, *DeleteConfirmation, DeleteConfirmation](b, DeleteConfirmation{}.ElicitSchema(), deleteContent)
	})
	b.Run("conformance.TaskName", func(b *testing.B) {
		baseline.BenchDecode[TaskName, *TaskName, TaskName](b, TaskName{}.ElicitSchema(), taskNameContent)
	})
	b.Run("conformance.TaskConfirmation", func(b *testing.B) {
		baseline.BenchDecode[TaskConfirmation, *TaskConfirmation, TaskConfirmation](b, TaskConfirmation{}.ElicitSchema(), taskConfirmContent)
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
	var d DeleteConfirmation
	if dj := baseline.DecodeBoth[DeleteConfirmation, *DeleteConfirmation, DeleteConfirmation](t, &d, deleteContent); d != dj || !d.Confirm {
		t.Errorf("DeleteConfirmation: generated %+v, jsonschema-go %+v", d, dj)
	}
	var n TaskName
	if nj := baseline.DecodeBoth[TaskName, *TaskName, TaskName](t, &n, taskNameContent); n != nj || n.Name != "partial-1" {
		t.Errorf("TaskName: generated %+v, jsonschema-go %+v", n, nj)
	}
	var tc TaskConfirmation
	if tcj := baseline.DecodeBoth[TaskConfirmation, *TaskConfirmation, TaskConfirmation](t, &tc, taskConfirmContent); tc != tcj || tc.Confirm {
		t.Errorf("TaskConfirmation: generated %+v, jsonschema-go %+v", tc, tcj)
	}
}
