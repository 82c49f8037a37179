// Package docscheck reads the repository's Markdown documentation
// (README.md and docs/**/*.md) for its tests: every relative link must
// resolve, to a file and, where a link names one, to a heading of a
// Markdown file; a link whose text is a test's name must point at the file
// that declares the test; every test, fuzz target or benchmark named in a
// code span must be declared somewhere; and every Go snippet marked as a whole file must
// build, as a module of its own, with elicitgen run over it.
//
// A whole-file snippet is a fenced code block directly preceded by an HTML
// comment naming the file:
//
//	<!-- file: main.go -->
//	```go
//	package main
//	...
//	```
//
// The snippets of one Markdown file make up one module.
package docscheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Doc is one Markdown file, read.
type Doc struct {
	Path     string    // as given to Read
	Links    []Link    // the inline links outside code
	Headings []string  // heading texts, in order, outside fenced code
	Files    []Snippet // whole-file snippets, in order
	Excerpts []Snippet // excerpts of the repository's files, in order
	Names    []Name    // test, fuzz and benchmark names in code spans
}

// Name is a test, fuzz target or benchmark named in a code span
// (`TestX`, `go test -fuzz FuzzX`), outside fenced code. Patterns
// (`FuzzDecode*`) and path elements (`testdata/fuzz/FuzzX/`) are not
// names.
type Name struct {
	Line int
	Name string
}

// Link is one inline link [Text](Target).
type Link struct {
	Line   int
	Text   string
	Target string
}

// Snippet is a fenced code block marked as a whole file
// (<!-- file: NAME -->) or as an excerpt of a file of the repository
// (<!-- excerpt: PATH -->, PATH from the repository's root): its lines,
// blank ones aside, are lines of that file, in order.
type Snippet struct {
	Line    int    // of the marker comment
	Name    string // the file name the marker gives
	Excerpt bool   // an excerpt marker
	Lang    string // the fence's info string
	Body    string
}

var (
	fileMarker = regexp.MustCompile(`^<!--\s*(file|excerpt):\s*(\S+)\s*-->\s*$`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineCode = regexp.MustCompile("`+[^`]*`+")
	// A name in a code span: not part of a path or of a pattern.
	spanName = regexp.MustCompile(`(^|[^\w/*])((?:Test|Fuzz|Benchmark)[A-Z0-9_]\w*)([^\w/*]|$)`)
	// [text](target): text may hold code spans (with no brackets); the
	// target has no spaces (no titles are used in these docs).
	inlineLink = regexp.MustCompile(`\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)`)
)

// Read parses the Markdown file at path.
func Read(path string) (*Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Doc{Path: path}
	var (
		fence   string // the open fence's marker, "" outside a block
		snippet *Snippet
		marker  *Snippet // a file marker waiting for its block
		body    strings.Builder
	)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
				if snippet != nil {
					snippet.Body = body.String()
					if snippet.Excerpt {
						d.Excerpts = append(d.Excerpts, *snippet)
					} else {
						d.Files = append(d.Files, *snippet)
					}
					snippet = nil
				}
				continue
			}
			if snippet != nil {
				body.WriteString(line)
				body.WriteByte('\n')
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			for _, c := range trimmed[3:] {
				if c != rune(fence[0]) {
					break
				}
				fence += fence[:1]
			}
			if marker != nil {
				snippet = marker
				snippet.Lang = strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1]))
				body.Reset()
				marker = nil
			}
			continue
		}
		if m := fileMarker.FindStringSubmatch(trimmed); m != nil {
			marker = &Snippet{Line: n, Name: m[2], Excerpt: m[1] == "excerpt"}
			continue
		}
		if marker != nil && trimmed != "" {
			return nil, fmt.Errorf("%s:%d: file marker %q not followed by a fenced code block", path, marker.Line, marker.Name)
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			d.Headings = append(d.Headings, m[1])
		}
		for _, span := range inlineCode.FindAllString(line, -1) {
			// Every match, overlapping ones too: "TestA TestB".
			for rest := strings.Trim(span, "`"); ; {
				m := spanName.FindStringSubmatchIndex(rest)
				if m == nil {
					break
				}
				d.Names = append(d.Names, Name{Line: n, Name: rest[m[4]:m[5]]})
				rest = rest[m[5]:]
			}
		}
		text := inlineCode.ReplaceAllStringFunc(line, func(s string) string {
			// Keep code spans inside link texts ([`TestX`](file)), drop
			// the rest: a code span is not a link.
			return strings.Map(func(r rune) rune {
				if r == '[' || r == ']' || r == '(' || r == ')' {
					return ' '
				}
				return r
			}, s)
		})
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			d.Links = append(d.Links, Link{Line: n, Text: m[1], Target: m[2]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if fence != "" {
		return nil, fmt.Errorf("%s: unclosed code block", path)
	}
	if marker != nil {
		return nil, fmt.Errorf("%s:%d: file marker %q not followed by a fenced code block", path, marker.Line, marker.Name)
	}
	return d, nil
}

// CheckExcerpt reports where excerpt s of d is not what the file it names
// (under root) holds: the first of its lines, blank ones aside, that is
// not the file's next matching line.
func CheckExcerpt(d *Doc, s Snippet, root string) string {
	data, err := os.ReadFile(filepath.Join(root, s.Name))
	if err != nil {
		return fmt.Sprintf("%s:%d: excerpt of %s: %v", d.Path, s.Line, s.Name, err)
	}
	lines := strings.Split(string(data), "\n")
	for _, want := range strings.Split(s.Body, "\n") {
		if strings.TrimSpace(want) == "" {
			continue
		}
		i := slices.Index(lines, want)
		if i < 0 {
			return fmt.Sprintf("%s:%d: excerpt of %s: %q is not a line of the file (after the lines before it)", d.Path, s.Line, s.Name, want)
		}
		lines = lines[i+1:]
	}
	return ""
}

// Anchors returns the anchors GitHub gives the headings: lower case,
// punctuation dropped (letters, digits, spaces, '-' and '_' kept), spaces
// as '-', and "-1", "-2"... appended to repeats.
func (d *Doc) Anchors() map[string]bool {
	out := make(map[string]bool)
	seen := make(map[string]int)
	for _, h := range d.Headings {
		a := Slug(h)
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n+1)
		} else {
			seen[a] = 0
		}
		out[a] = true
	}
	return out
}

// Slug is a heading's anchor, as GitHub makes it (without the suffix of a
// repeated heading).
func Slug(heading string) string {
	// Link markup in a heading keeps only its text.
	heading = inlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// External reports whether a link target leaves the repository (a URL
// with a scheme, such as https: or mailto:).
func External(target string) bool {
	i := strings.IndexAny(target, ":/#?")
	return i > 0 && target[i] == ':'
}

// testName matches a link text that names a test, fuzz target or
// benchmark: `TestX`.
var testName = regexp.MustCompile("^`((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]*)`$")

// CheckLinks returns a problem for every relative link of d that does not
// resolve: a missing file or directory, a fragment that names no heading
// of the Markdown file it points at, or a link whose text names a test
// that the linked file does not declare.
func CheckLinks(d *Doc) []string {
	var problems []string
	docs := map[string]*Doc{}
	for _, l := range d.Links {
		if External(l.Target) {
			continue
		}
		where := fmt.Sprintf("%s:%d: link %s", d.Path, l.Line, l.Target)
		file, frag, _ := strings.Cut(l.Target, "#")
		target := d.Path
		if file != "" {
			target = filepath.Join(filepath.Dir(d.Path), filepath.FromSlash(file))
		}
		info, err := os.Stat(target)
		if err != nil {
			problems = append(problems, where+": no such file")
			continue
		}
		if frag != "" {
			if !strings.HasSuffix(target, ".md") {
				problems = append(problems, where+": a fragment on a file that is not Markdown")
				continue
			}
			td, ok := docs[target]
			if !ok {
				if td, err = Read(target); err != nil {
					problems = append(problems, where+": "+err.Error())
					continue
				}
				docs[target] = td
			}
			if !td.Anchors()[frag] {
				problems = append(problems, where+": no heading with anchor #"+frag)
			}
		}
		if m := testName.FindStringSubmatch(l.Text); m != nil {
			src, err := os.ReadFile(target)
			if info.IsDir() || err != nil || !regexp.MustCompile(`(?m)^func `+m[1]+`\(`).Match(src) {
				problems = append(problems, where+": does not declare "+m[1])
			}
		}
	}
	return problems
}

// declaredName is a test, fuzz target or benchmark declaration.
var declaredName = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w*)\(`)

// Declared returns the names of the tests, fuzz targets and benchmarks
// declared in the Go files under root (.git and hidden directories
// skipped).
func Declared(root string) (map[string]bool, error) {
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range declaredName.FindAllSubmatch(src, -1) {
			names[string(m[1])] = true
		}
		return nil
	})
	return names, err
}

// CheckNames returns a problem for every name in a code span of d that no
// Go file declares (declared, from Declared).
func CheckNames(d *Doc, declared map[string]bool) []string {
	var problems []string
	for _, n := range d.Names {
		if !declared[n.Name] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is named in a code span but declared in no Go file", d.Path, n.Line, n.Name))
		}
	}
	return problems
}
