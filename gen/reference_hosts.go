package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/elicitgen/elicitgen/internal/hostmatrix"
)

// hostNotes says what each host of the host matrix shows at step s, hosts
// that show the same grouped.
func hostNotes(s *stepModel, fields []RefField) []RefHosts {
	var out []RefHosts
	for _, h := range hostmatrix.Hosts {
		shows := hostShows(h, s, fields)
		if i := slices.IndexFunc(out, func(r RefHosts) bool { return r.Shows == shows }); i >= 0 {
			out[i].Hosts = append(out[i].Hosts, h.Name)
			continue
		}
		out = append(out, RefHosts{Shows: shows, Hosts: []string{h.Name}})
	}
	return out
}

// hostShows is what host h shows a person at step s.
func hostShows(h hostmatrix.Host, s *stepModel, fields []RefField) string {
	switch {
	case !h.Form && !h.URL:
		return "no elicitation: " + fallbackShort(s)
	case h.Drops:
		return "declares elicitation, then drops the request: the person sees nothing and the call waits " + h.DropWait + " for an answer"
	case s.URL && !h.URL:
		return "no URL mode: " + fallbackShort(s)
	case s.URL:
		return "URL mode: the message and the link, opened in the browser once the person agrees"
	}
	var cannot []string
	for _, f := range fields {
		if k := hostKind(f); h.CannotShow(k) {
			cannot = append(cannot, fmt.Sprintf("`%s` (%s)", f.Property, k))
		}
	}
	var shows string
	if len(cannot) > 0 {
		shows = "approve or decline only: " + joinAnd(cannot) + " cannot be entered"
	} else {
		shows = "the form: " + formWords(fields)
	}
	if h.FirstOption {
		for _, f := range fields {
			if f.Required && f.Type == "enum" && len(f.Enum) > 0 {
				return "fills `" + f.Property + "` with its first option (" + f.Enum[0].Value + ") and answers without the person"
			}
		}
	}
	if h.Declines {
		shows = "declines unless the person opted in to elicitation; then " + shows
	}
	return shows
}

// hostKind is the host matrix's kind of a field.
func hostKind(f RefField) string {
	switch {
	case f.Type == "enum" && len(f.Enum) > 0 && f.Enum[0].Title != "":
		return hostmatrix.TitledEnum
	case f.Type == "enum":
		return hostmatrix.Enum
	case f.Type == "multi-select":
		return hostmatrix.Multi
	}
	return f.Type
}

// formWords lists a form's fields by title, with an enum's titles.
func formWords(fields []RefField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		w := f.Title
		if len(f.Enum) > 0 {
			vals := make([]string, len(f.Enum))
			for j, e := range f.Enum {
				vals[j] = e.Value
				if e.Title != "" {
					vals[j] = e.Title
				}
			}
			w += " (" + strings.Join(vals, ", ") + ")"
		}
		parts[i] = w
	}
	return strings.Join(parts, "; ")
}

// fallbackShort names what the person gets instead of step s, in a few
// words.
func fallbackShort(s *stepModel) string {
	var what string
	switch s.Fallback {
	case "defaults":
		what = "the form's defaults answer it"
	case "arguments":
		what = "a tool error names the missing arguments"
	case "handler":
		what = "the handler's Unavailable result"
	case "preview":
		what = "a preview and a confirmation token"
	case "link":
		what = "the link in the result"
	default:
		what = "error -32021"
	}
	if s.Prefill {
		what = "answered from the arguments when passed, else " + what
	}
	return what
}
