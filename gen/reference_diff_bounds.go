package gen

import (
	"slices"
	"strconv"
)

// bounds compares a field's bounds: tightened is breaking (an answer the
// old form took is refused), loosened is compatible.
func (d *refDiffer) bounds(o, n RefField) {
	asNum := func(p *int64) *float64 {
		if p == nil {
			return nil
		}
		v := float64(*p)
		return &v
	}
	for _, b := range []struct {
		name  string
		lower bool
		a, b  *float64
	}{
		{"minimum", true, o.Minimum, n.Minimum}, {"maximum", false, o.Maximum, n.Maximum},
		{"minLength", true, asNum(o.MinLength), asNum(n.MinLength)}, {"maxLength", false, asNum(o.MaxLength), asNum(n.MaxLength)},
		{"minItems", true, asNum(o.MinItems), asNum(n.MinItems)}, {"maxItems", false, asNum(o.MaxItems), asNum(n.MaxItems)},
	} {
		a, z := boundWord(b.a), boundWord(b.b)
		if a == z {
			continue
		}
		tighter := b.b != nil && (b.a == nil || (b.lower && *b.b > *b.a) || (!b.lower && *b.b < *b.a))
		if tighter {
			d.add(Breaking, "%s %s → %s (tightened: an answer the old form took is refused)", b.name, a, z)
		} else {
			d.add(Compatible, "%s %s → %s (loosened)", b.name, a, z)
		}
	}
}

func boundWord(p *float64) string {
	if p == nil {
		return "none"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// enum compares the allowed values: one removed is breaking, one added
// compatible, a title edited restarts flows in flight.
func (d *refDiffer) enum(old, new []RefEnum) {
	for _, n := range new {
		i := slices.IndexFunc(old, func(o RefEnum) bool { return o.Value == n.Value })
		switch {
		case i < 0:
			d.add(Compatible, "enum value %q added", n.Value)
		case old[i].Title != n.Title:
			d.add(Restarts, "enum value %q retitled %s → %q", n.Value, orNone(old[i].Title), n.Title)
		}
	}
	for _, o := range old {
		if !slices.ContainsFunc(new, func(n RefEnum) bool { return n.Value == o.Value }) {
			d.add(Breaking, "enum value %q removed: an answer with it is refused", o.Value)
		}
	}
}
