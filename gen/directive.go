package gen

import (
	"fmt"
	"go/ast"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Directives almost written, titles from Go names and descriptions from
// doc comments: what a new user types is read as what they meant, and
// said so (issue 29).

// directiveFix reads one comment: fixed is the directive line it is or
// almost is ("" when it is none, or close to none); msg, when not "", is
// the problem to report. A directive is written //elicit:WORD, with no
// space after // (as //go:generate) and none after the colon; a spaced
// comment is read as a directive only when its word is one, or close to
// one (otherwise it is prose that starts with "elicit:").
func directiveFix(text string) (fixed, msg string) {
	after, ok := strings.CutPrefix(text, "//")
	body := strings.TrimLeft(after, " \t")
	rest, isElicit := strings.CutPrefix(body, "elicit:")
	if !ok || !isElicit {
		return "", ""
	}
	spaced := len(body) < len(after)
	colonSpaced := strings.TrimLeft(rest, " \t") != rest
	word, tail, _ := strings.Cut(strings.TrimLeft(rest, " \t"), " ")
	target := word
	if !slices.Contains(directives, word) {
		target = nearest(word, slices.Clone(directives))
	}
	if target != "" {
		fixed = strings.TrimSpace(directivePrefix + target + " " + tail)
	}
	switch {
	case (spaced || colonSpaced) && target != "":
		where := "after //"
		if !spaced {
			where = "after the colon"
		}
		return fixed, fmt.Sprintf("%q is no directive: write %s (a directive has no space %s, as //go:generate has none)", text, fixed, where)
	case spaced:
		return "", ""
	case target == word:
		return fixed, ""
	}
	hint := ""
	if target != "" {
		hint = " (did you mean " + directivePrefix + target + "?)"
	}
	return fixed, fmt.Sprintf("unknown directive //elicit:%s%s: the directives are //elicit:form, //elicit:tool, //elicit:task, //elicit:prompt, //elicit:resource, //elicit:annotations and //elicit:title", word, hint)
}

const directivePrefix = "//elicit:"

// checkDirectives reports every comment of f that is almost a directive
// (spaced, misspelt, unknown). A comment group whose every such line is
// close to a directive is checked as if written right (fixDoc), so that
// the rest of its declaration is checked in the same run; the groups with
// a line close to none are returned, and not taken for forms.
func (c *checker) checkDirectives(f *ast.File) map[*ast.CommentGroup]bool {
	bad := map[*ast.CommentGroup]bool{}
	for _, cg := range f.Comments {
		var list []*ast.Comment
		for i, cm := range cg.List {
			line, msg := directiveFix(cm.Text)
			if msg == "" {
				continue
			}
			c.errorf(cm.Pos(), "%s", msg)
			if line == "" {
				bad[cg] = true
				continue
			}
			if list == nil {
				list = slices.Clone(cg.List)
			}
			list[i] = &ast.Comment{Slash: cm.Slash, Text: line}
		}
		if list != nil && !bad[cg] {
			c.fixed[cg] = &ast.CommentGroup{List: list}
		}
	}
	return bad
}

// fixDoc is cg as checked: with its almost-directives written right.
func (c *checker) fixDoc(cg *ast.CommentGroup) *ast.CommentGroup {
	if f, ok := c.fixed[cg]; ok {
		return f
	}
	return cg
}

// docText is the description a doc comment gives the Go declaration name:
// its first paragraph, without a leading name (Go doc comments start with
// the name they document; the model and the user would read it) and the
// "is" or "are" after it, the next letter capitalised: "Deploy deploys a
// service" → "Deploys a service", "Name is the full name" → "The full
// name".
func docText(cg *ast.CommentGroup, name string) string {
	text := firstParagraph(cg)
	rest, ok := strings.CutPrefix(text, name+" ")
	if !ok {
		return text
	}
	for _, verb := range []string{"is ", "are "} {
		rest = strings.TrimPrefix(rest, verb)
	}
	if rest == "" {
		return text
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}

// nameTitle is the title of a property made from its Go field name: its
// words, split at camelCase (an acronym stays one word, kept as written),
// the first capitalised, the others lower case unless acronyms:
// ReleaseNotes → "Release notes", UserID → "User ID".
func nameTitle(name string) string {
	rs := []rune(name)
	var words []string
	start := 0
	for i := 1; i <= len(rs); i++ {
		if i < len(rs) && !wordBreak(rs, i) {
			continue
		}
		w := string(rs[start:i])
		if len(words) > 0 && !isAcronym(w) {
			w = strings.ToLower(w)
		}
		words = append(words, w)
		start = i
	}
	return strings.Join(words, " ")
}

// wordBreak reports whether a new word of a camelCase name starts at i:
// a capital after a lower-case letter or a digit (releaseNotes), or the
// last capital of an acronym before a lower-case letter (URLPath).
func wordBreak(rs []rune, i int) bool {
	prev, cur := rs[i-1], rs[i]
	if !unicode.IsUpper(cur) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
}

// isAcronym reports whether w has two capitals or more and no lower case.
func isAcronym(w string) bool {
	upper := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return upper > 1
}
