package gen

import (
	"slices"
	"strconv"
)

// steps compares a declaration's steps, matched by key (or, for a key
// changed, by Go field).
func (d *refDiffer) steps(old, new []RefStep) {
	matched := map[int]bool{}
	digestChanged := false
	for _, n := range new {
		i := slices.IndexFunc(old, func(o RefStep) bool { return o.Key == n.Key })
		if i < 0 {
			i = slices.IndexFunc(old, func(o RefStep) bool {
				return o.Field == n.Field && !slices.ContainsFunc(new, func(x RefStep) bool { return x.Key == o.Key })
			})
		}
		d.in("step "+strconv.Quote(n.Key), func() {
			if i < 0 {
				d.add(Restarts, "added: what the person is asked changed")
				digestChanged = true
				return
			}
			matched[i] = true
			d.step(old[i], n)
			digestChanged = digestChanged || old[i].Digest != n.Digest
		})
	}
	for i, o := range old {
		if !matched[i] {
			d.in("step "+strconv.Quote(o.Key), func() { d.add(Breaking, "removed: a client holding its question can no longer answer it") })
			digestChanged = true
		}
	}
	if digestChanged {
		d.add(Restarts, "a step's digest changed (what the person sees or what an answer means): on a rolling deploy, its flows in flight restart from the first question")
	}
}

func (d *refDiffer) step(o, n RefStep) {
	if o.Key != n.Key {
		d.add(Breaking, "key %q → %q: an answer under the old key is not taken", o.Key, n.Key)
	}
	if o.Mode != n.Mode {
		d.add(Breaking, "mode %s → %s", o.Mode, n.Mode)
	}
	if o.Message != n.Message || o.MessageByHandler != n.MessageByHandler {
		d.add(Restarts, "message %s → %s", messageWords(o), messageWords(n))
	}
	for _, c := range []struct {
		name string
		a, b string
	}{
		{"asked", o.Asked, n.Asked},
		{"fallback", o.Fallback, n.Fallback},
		{"confirm", o.Confirm, n.Confirm},
		{"once", strconv.FormatBool(o.Once), strconv.FormatBool(n.Once)},
	} {
		if c.a != c.b {
			d.add(Restarts, "%s %s → %s", c.name, orNone(c.a), orNone(c.b))
		}
	}
	if o.Together != n.Together {
		d.add(Compatible, "together %t → %t (only how questions group into rounds)", o.Together, n.Together)
	}
	if o.WithoutPerson != n.WithoutPerson && o.Fallback == n.Fallback {
		d.add(Compatible, "what the model gets without a person: %q → %q", o.WithoutPerson, n.WithoutPerson)
	}
	d.fields(o.Fields, n.Fields)
}

func messageWords(s RefStep) string {
	if s.MessageByHandler {
		return "set by the handler"
	}
	return strconv.Quote(s.Message)
}

func (d *refDiffer) fields(old, new []RefField) {
	for _, n := range new {
		i := slices.IndexFunc(old, func(o RefField) bool { return o.Property == n.Property })
		d.in("field "+strconv.Quote(n.Property), func() {
			switch {
			case i < 0 && n.Required && n.Default == nil:
				d.add(Breaking, "added, required, without a default: an answer without it is refused")
			case i < 0:
				d.add(Restarts, "added (optional or with a default): the person sees a new field")
			default:
				d.field(old[i], n)
			}
		})
	}
	for _, o := range old {
		if !slices.ContainsFunc(new, func(n RefField) bool { return n.Property == o.Property }) {
			d.in("field "+strconv.Quote(o.Property), func() { d.add(Breaking, "removed: an answer that carries it is refused") })
		}
	}
}

func (d *refDiffer) field(o, n RefField) {
	if o.Type != n.Type {
		d.add(Breaking, "type %s → %s", o.Type, n.Type)
	}
	if o.Format != n.Format {
		d.add(Breaking, "format %s → %s", orNone(o.Format), orNone(n.Format))
	}
	oldMust, newMust := o.Required && o.Default == nil, n.Required && n.Default == nil
	switch {
	case newMust && !oldMust && !o.Required:
		d.add(Breaking, "made required, without a default: an answer without it is refused")
	case newMust && !oldMust:
		d.add(Breaking, "default removed: now required without a default")
	case o.Required != n.Required:
		d.add(Restarts, "required %t → %t", o.Required, n.Required)
	}
	if o.Title != n.Title {
		d.add(Restarts, "title %q → %q", o.Title, n.Title)
	}
	if o.Description != n.Description {
		d.add(Restarts, "description edited (the person reads it in the form)")
	}
	if a, b := deref(o.Default), deref(n.Default); a != b && n.Default != nil {
		d.add(Restarts, "default %s → %q", orNone(a), b)
	} else if a != b {
		d.add(Restarts, "default %q removed", a)
	}
	d.bounds(o, n)
	d.enum(o.Enum, n.Enum)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
