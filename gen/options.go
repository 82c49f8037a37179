package gen

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/internal/format"
)

// formats lists the string formats of the 2026-07-28 schema subset.
var formats = []string{"email", "uri", "date", "date-time"}

// checkOptions applies the tag options that depend on the field's kind:
// bounds, format, default, enum=, and required on a pointer.
func (c *checker) checkOptions(f *fieldModel, spec tagSpec, place tagPlace) bool {
	ok := true
	at := "" // the option the next failure is about
	fail := func(format string, args ...any) {
		c.errorf(place.opt(spec.at, at), format, args...)
		ok = false
	}
	at = "required"
	if f.Required && f.Pointer {
		fail("field %s is a pointer, which makes it optional, and also required: drop required, or use a non-pointer type", f.GoName)
	}
	at = "enumnames"
	if spec.EnumNames {
		if f.Kind != kindEnum || f.Enum == nil || !f.Enum.Titled {
			fail("enumnames on field %s: it sends a titled single-select's titles as the deprecated enumNames, and %s is not a titled single-select (a string type whose constants carry //elicit:title)", f.GoName, f.GoName)
		} else {
			f.EnumNames = true
		}
	}
	at = "enum"
	if len(spec.Enum) > 0 && f.Kind != kindEnum && f.Kind != kindMulti {
		fail("enum= on field %s: only string and []string fields take an inline enum", f.GoName)
	}

	// format
	at = "format"
	if f.Format != "" {
		switch {
		case !slices.Contains(formats, f.Format):
			fail("unsupported format %q on field %s: the formats are email, uri, date and date-time", f.Format, f.GoName)
		case f.Kind == kindTime && f.Format != "date" && f.Format != "date-time":
			fail("format %q on time.Time field %s: use date or date-time", f.Format, f.GoName)
		case f.Kind != kindString && f.Kind != kindTime:
			fail("format on field %s: format applies to plain string fields only", f.GoName)
		}
	}
	if f.Kind == kindTime && f.Format == "" {
		f.Format = "date-time"
	}

	// bounds
	if spec.Min != "" || spec.Max != "" {
		switch f.Kind {
		case kindInteger:
			lo, hi := f.MinInt, f.MaxInt // the range of the Go type
			parse := func(opt, s string) int64 {
				at = opt
				n, err := strconv.ParseInt(s, 10, 64)
				switch {
				case err != nil && errors.Is(err, strconv.ErrRange), err == nil && (n < lo || n > hi):
					fail("%s=%s on field %s: outside the range of %s (%d to %d)", opt, s, f.GoName, f.Value, lo, hi)
				case err != nil:
					fail("%s=%s on field %s: want an integer", opt, s, f.GoName)
				default:
					return n
				}
				return 0
			}
			if spec.Min != "" {
				f.MinInt = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxInt = parse("max", spec.Max)
			}
		case kindNumber:
			limit := math.MaxFloat64
			if f.Float32 {
				limit = math.MaxFloat32
			}
			parse := func(opt, s string) (float64, bool) {
				at = opt
				n, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || math.Abs(n) > limit {
					fail("%s=%s on field %s: want a number in the range of %s", opt, s, f.GoName, f.Value)
					return 0, false
				}
				return n, true
			}
			if spec.Min != "" {
				f.MinNum, f.HasMin = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxNum, f.HasMax = parse("max", spec.Max)
			}
		case kindString, kindMulti:
			what := "a length"
			if f.Kind == kindMulti {
				what = "an item count"
			}
			parse := func(opt, s string) (int64, bool) {
				at = opt
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil || n < 0 || n > math.MaxInt32 {
					fail("%s=%s on field %s: want %s, a whole number from 0", opt, s, f.GoName, what)
					return 0, false
				}
				return n, true
			}
			if spec.Min != "" {
				f.MinInt, f.HasMin = parse("min", spec.Min)
			}
			if spec.Max != "" {
				f.MaxInt, f.HasMax = parse("max", spec.Max)
			}
			if f.Kind == kindMulti && f.Enum != nil && f.HasMin && f.MinInt > int64(len(f.Enum.Values)) {
				at = "min"
				fail("min=%d on field %s: there are only %d values to choose", f.MinInt, f.GoName, len(f.Enum.Values))
			}
		default:
			at = "max"
			if spec.Min != "" {
				at = "min"
			}
			fail("min/max on field %s: bounds apply to numbers, string lengths and multi-select item counts", f.GoName)
		}
		if ok && f.HasMin && f.HasMax && (f.MinInt > f.MaxInt || f.MinNum > f.MaxNum) {
			at = "min"
			fail("min > max on field %s", f.GoName)
		}
	}

	// default
	at = "default"
	if spec.Default != nil && ok {
		if f.Pointer {
			fail("default on field %s: a pointer field is nil when absent; use a non-pointer type to have a default", f.GoName)
		} else if f.Required {
			fail("default on required field %s: a required property has no use for a default; drop one of them", f.GoName)
		} else if d, reason := parseDefault(f, *spec.Default); reason != "" {
			fail("default=%s on field %s %s", *spec.Default, f.GoName, reason)
		} else {
			f.Default = d
		}
	}
	return ok
}

// parseDefault types a default by its field and checks it against the
// field's enum, bounds and format. reason is "" when it fits.
func parseDefault(f *fieldModel, raw string) (*propDefault, string) {
	d := &propDefault{Raw: raw}
	switch f.Kind {
	case kindString:
		d.String = raw
		n := int64(utf8.RuneCountInString(raw))
		if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
			return nil, "does not fit the length bounds"
		}
		if r := formatReason(f.Format, raw); r != "" {
			return nil, r
		}
	case kindBool:
		b, err := strconv.ParseBool(raw)
		if err != nil || (raw != "true" && raw != "false") {
			return nil, "is not a boolean (true or false)"
		}
		d.Bool = b
	case kindInteger:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, "is not an integer"
		}
		if n < f.MinInt || n > f.MaxInt {
			return nil, "is out of bounds"
		}
		d.Int = n
	case kindNumber:
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "is not a number"
		}
		if f.HasMin && n < f.MinNum || f.HasMax && n > f.MaxNum || f.Float32 && math.Abs(n) > math.MaxFloat32 {
			return nil, "is out of bounds"
		}
		d.Num = n
	case kindEnum:
		if !f.Enum.has(raw) {
			return nil, "is not one of the enum values " + f.Enum.list()
		}
		d.String = raw
	case kindMulti:
		d.List = []string{}
		if raw != "" {
			d.List = strings.Split(raw, "|")
		}
		seen := map[string]bool{}
		for _, v := range d.List {
			if !f.Enum.has(v) {
				return nil, "has " + strconv.Quote(v) + ", which is not one of the enum values " + f.Enum.list()
			}
			if seen[v] {
				return nil, "repeats " + strconv.Quote(v)
			}
			seen[v] = true
		}
		n := int64(len(d.List))
		if f.HasMin && n < f.MinInt || f.HasMax && n > f.MaxInt {
			return nil, "does not fit the item count bounds"
		}
	case kindTime:
		var t time.Time
		var good bool
		if f.Format == "date" {
			t, good = format.ParseDate(raw)
		} else {
			t, good = format.ParseDateTime(raw)
		}
		if !good {
			return nil, "is not a valid " + f.Format
		}
		d.Time = t
	}
	return d, ""
}

// formatReason checks a string against a format at generate time.
func formatReason(name, s string) string {
	switch name {
	case "email":
		if !format.IsEmail(s) {
			return "is not an email address"
		}
	case "uri":
		if !format.IsAbsoluteURI(s) {
			return "is not an absolute URI"
		}
	case "date":
		if _, ok := format.ParseDate(s); !ok {
			return "is not a valid date"
		}
	case "date-time":
		if _, ok := format.ParseDateTime(s); !ok {
			return "is not a valid date-time"
		}
	}
	return ""
}

func (e *enumModel) has(v string) bool {
	for _, x := range e.Values {
		if x.Value == v {
			return true
		}
	}
	return false
}

// list renders the values as "dev, staging, prod".
func (e *enumModel) list() string {
	vals := make([]string, len(e.Values))
	for i, v := range e.Values {
		vals[i] = v.Value
	}
	return strings.Join(vals, ", ")
}
