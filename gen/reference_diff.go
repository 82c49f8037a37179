package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A ChangeClass says whom a contract change concerns.
type ChangeClass int

const (
	// Compatible: only the model reads it, or clients and hosts accept
	// both sides.
	Compatible ChangeClass = iota
	// Restarts: what the person sees or what an answer means changed: on
	// a rolling deploy, flows in flight restart.
	Restarts
	// Breaking: a client or host that worked with the old contract may
	// fail with the new one.
	Breaking
)

func (c ChangeClass) String() string {
	return [...]string{"compatible", "restarts flows in flight", "breaking"}[c]
}

// A ContractChange is one difference between two contracts, in words.
type ContractChange struct {
	Class ChangeClass
	Where string // tool "deploy", step "target", field "replicas"
	What  string
}

func (c ContractChange) String() string { return c.Class.String() + ": " + c.Where + ": " + c.What }

// DiffReferences compares two contracts (or references): every change,
// packages by path, declarations by kind and name, steps by key, fields by
// property; in the new contract's order, removals after.
// Two contracts of one package each are compared whatever their paths (a
// package moved, or two versions side by side).
func DiffReferences(old, new *Reference) []ContractChange {
	var d refDiffer
	if len(old.Packages) == 1 && len(new.Packages) == 1 {
		if o, n := old.Packages[0].Path, new.Packages[0].Path; o != n {
			d.add(Compatible, "package %s → %s", o, n)
		}
		d.pkg(old.Packages[0].Declarations, new.Packages[0].Declarations)
		return d.changes
	}
	oldPkgs := map[string]RefPackage{}
	for _, p := range old.Packages {
		oldPkgs[p.Path] = p
	}
	newPaths := map[string]bool{}
	for _, p := range new.Packages {
		newPaths[p.Path] = true
		d.pkg(oldPkgs[p.Path].Declarations, p.Declarations)
	}
	for _, p := range old.Packages {
		if !newPaths[p.Path] {
			d.pkg(p.Declarations, nil)
		}
	}
	return d.changes
}

type refDiffer struct {
	changes []ContractChange
	where   []string
}

func (d *refDiffer) add(class ChangeClass, format string, args ...any) {
	where := strings.Join(d.where, ", ")
	if where == "" {
		where = "contract"
	}
	d.changes = append(d.changes, ContractChange{Class: class, Where: where, What: fmt.Sprintf(format, args...)})
}

func (d *refDiffer) in(where string, f func()) {
	d.where = append(d.where, where)
	f()
	d.where = d.where[:len(d.where)-1]
}

func (d *refDiffer) pkg(old, new []RefDecl) {
	id := func(x RefDecl) string { return x.Kind + " " + strconv.Quote(x.Name) }
	for _, n := range new {
		i := slices.IndexFunc(old, func(o RefDecl) bool { return id(o) == id(n) })
		d.in(id(n), func() {
			if i < 0 {
				d.add(Compatible, "added")
				return
			}
			d.decl(old[i], n)
		})
	}
	for _, o := range old {
		if !slices.ContainsFunc(new, func(n RefDecl) bool { return id(o) == id(n) }) {
			d.in(id(o), func() { d.add(Breaking, "removed: a client that calls it gets an error") })
		}
	}
}

func (d *refDiffer) decl(o, n RefDecl) {
	if o.Description != n.Description {
		d.add(Compatible, "description edited (only the model reads it)")
	}
	if a, b := strings.Join(o.Annotations, ","), strings.Join(n.Annotations, ","); a != b {
		d.add(Compatible, "annotations %s → %s (hints for the model and the host)", orNone(a), orNone(b))
	}
	if o.MIMEType != n.MIMEType {
		d.add(Compatible, "MIME type %s → %s", orNone(o.MIMEType), orNone(n.MIMEType))
	}
	if o.Task != n.Task {
		class := Compatible
		if n.Task == "required" {
			class = Breaking
		}
		d.add(class, "task support %s → %s", orNone(o.Task), orNone(n.Task))
	}
	d.args(o.Arguments, n.Arguments)
	d.steps(o.Steps, n.Steps)
}

func (d *refDiffer) args(old, new []RefArg) {
	for _, n := range new {
		i := slices.IndexFunc(old, func(o RefArg) bool { return o.Name == n.Name })
		d.in("argument "+strconv.Quote(n.Name), func() {
			switch {
			case i < 0 && n.Required:
				d.add(Breaking, "added, required: a call without it is refused")
			case i < 0:
				d.add(Compatible, "added, optional")
			default:
				o := old[i]
				if o.Type != n.Type {
					d.add(Breaking, "type %s → %s", o.Type, n.Type)
				}
				if !o.Required && n.Required {
					d.add(Breaking, "made required: a call without it is refused")
				} else if o.Required && !n.Required {
					d.add(Compatible, "now optional")
				}
				if o.Description != n.Description {
					d.add(Compatible, "description edited (only the model reads it)")
				}
			}
		})
	}
	for _, o := range old {
		if !slices.ContainsFunc(new, func(n RefArg) bool { return n.Name == o.Name }) {
			d.in("argument "+strconv.Quote(o.Name), func() { d.add(Breaking, "removed: a call that passes it is refused") })
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
