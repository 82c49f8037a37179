package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The //elicit: directives, in doc comments.
const (
	directivePrefix      = "//elicit:"
	directiveForm        = "//elicit:form"
	directiveTitle       = "//elicit:title"
	directiveTool        = "//elicit:tool"
	directivePrompt      = "//elicit:prompt"
	directiveResource    = "//elicit:resource"
	directiveAnnotations = "//elicit:annotations"
	directiveTask        = "//elicit:task"
)

// directives are the //elicit: directives, by their word.
var directives = []string{"annotations", "form", "prompt", "resource", "task", "title", "tool"}

// hasDirective reports whether doc carries the directive line d.
func hasDirective(doc *ast.CommentGroup, d string) bool {
	_, ok := directiveArg(doc, d)
	return ok
}

// directiveArg returns the text after directive d in doc.
func directiveArg(doc *ast.CommentGroup, d string) (string, bool) {
	if doc == nil {
		return "", false
	}
	for _, c := range doc.List {
		if c.Text == d {
			return "", true
		}
		if rest, ok := strings.CutPrefix(c.Text, d+" "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// directiveComment returns the comment of doc that carries directive d, or
// nil.
func directiveComment(doc *ast.CommentGroup, d string) *ast.Comment {
	if cms := directiveComments(doc, d); len(cms) > 0 {
		return cms[0]
	}
	return nil
}

// directiveComments returns the comments of doc that carry directive d.
func directiveComments(doc *ast.CommentGroup, d string) []*ast.Comment {
	if doc == nil {
		return nil
	}
	var out []*ast.Comment
	for _, c := range doc.List {
		if c.Text == d || strings.HasPrefix(c.Text, d+" ") {
			out = append(out, c)
		}
	}
	return out
}

// firstParagraph is the comment's text up to its first blank line, on one
// line, without directives.
func firstParagraph(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	text := strings.TrimSpace(cg.Text())
	para, _, _ := strings.Cut(text, "\n\n")
	return strings.Join(strings.Fields(para), " ")
}

// A wordsRule is the rule of a directive that only a tool takes, whose
// argument is words of a fixed set.
type wordsRule struct {
	directive string
	seps      string   // the characters between words
	known     []string // the words, in the order messages list them
	// unknown is the problem with another word: formatted with it (%q)
	// and a did-you-mean.
	unknown string
	// notTool is the problem on a prompt or resource: formatted with the
	// declaration's Go name and its kind.
	notTool string
}

var (
	annotationsRule = wordsRule{
		directive: directiveAnnotations, seps: ", ", known: []string{"readonly", "destructive", "idempotent", "openworld"},
		unknown: "unknown annotation %q%s (known: readonly, destructive, idempotent, openworld)",
		notTool: "//elicit:annotations is for tools: a %[2]s has no annotations",
	}
	taskRule = wordsRule{
		directive: directiveTask, seps: " \t", known: []string{"optional", "required"},
		unknown: "unknown //elicit:task value %q%s (the values are optional and required)",
		notTool: "//elicit:task is for tools: only tools/call runs as a task, and %[1]s declares a %[2]s",
	}
	// restartRule is the word after //elicit:task's value.
	restartRule = wordsRule{
		directive: directiveTask, known: []string{"restartable"},
		unknown: "unknown //elicit:task word %q%s (after optional or required comes only restartable, for a task whose Run may run again from the start)",
	}
)

// annotations are what each word of //elicit:annotations sets.
var annotations = map[string]func(t *toolModel){
	"readonly":    func(t *toolModel) { t.ReadOnly = true },
	"destructive": func(t *toolModel) { t.Destructive = true },
	"idempotent":  func(t *toolModel) { t.Idempotent = true },
	"openworld":   func(t *toolModel) { t.OpenWorld = true },
}

// toolDirective returns the first comment of pt that carries r's
// directive, when pt is a tool; on a prompt or resource it reports the
// directive, and returns nil.
func (c *checker) toolDirective(pt pendingTool, t *toolModel, r wordsRule) *ast.Comment {
	cm := directiveComment(pt.doc, r.directive)
	if cm != nil && t.Kind != declTool {
		c.errorf(cm.Pos(), r.notTool, pt.spec.Name.Name, t.Kind)
		return nil
	}
	return cm
}

// word is a word of a directive, where it stands.
type word struct {
	text string
	at   token.Pos
}

// directiveWords splits the argument of the directive comment cm into its
// words by r.
func directiveWords(cm *ast.Comment, r wordsRule) []word {
	var words []word
	sep := func(b byte) bool { return strings.IndexByte(r.seps, b) >= 0 }
	for i := len(r.directive); i < len(cm.Text); {
		for i < len(cm.Text) && sep(cm.Text[i]) {
			i++
		}
		j := i
		for j < len(cm.Text) && !sep(cm.Text[j]) {
			j++
		}
		if i < j {
			words = append(words, word{cm.Text[i:j], cm.Pos() + token.Pos(i)})
		}
		i = j
	}
	return words
}

// knownWord reports whether w is one of r's words; when not, it reports
// the problem, with the word meant when one is close.
func (c *checker) knownWord(w word, r wordsRule) bool {
	if slices.Contains(r.known, w.text) {
		return true
	}
	hint, fix := "", Edit{}
	if near := nearest(w.text, slices.Clone(r.known)); near != "" {
		hint = ": did you mean " + near + "?"
		fix = Edit{Pos: w.at, End: w.at + token.Pos(len(w.text)), Text: near}
	}
	c.fixf(w.at, fix, r.unknown, w.text, hint)
	return false
}

// toolAnnotations reads //elicit:annotations into t.
func (c *checker) toolAnnotations(pt pendingTool, t *toolModel) {
	cm := c.toolDirective(pt, t, annotationsRule)
	if cm == nil {
		return
	}
	var destructive token.Pos
	for _, w := range directiveWords(cm, annotationsRule) {
		if c.knownWord(w, annotationsRule) {
			annotations[w.text](t)
		}
		if w.text == "destructive" {
			destructive = w.at
		}
	}
	if t.ReadOnly && t.Destructive {
		c.errorf(destructive, "tool %s cannot be both readonly and destructive", t.MCPName)
	}
}

// taskDirective reads //elicit:task optional|required [restartable] into
// t.Task and t.Restartable.
func (c *checker) taskDirective(pt pendingTool, t *toolModel) {
	cm := c.toolDirective(pt, t, taskRule)
	if cm == nil {
		return
	}
	for _, again := range directiveComments(pt.doc, directiveTask)[1:] {
		c.errorf(again.Pos(), "//elicit:task given twice on %s: keep one", pt.spec.Name.Name)
	}
	words := directiveWords(cm, taskRule)
	switch {
	case len(words) == 0:
		c.errorf(cm.Pos(), "//elicit:task needs a value: optional (a task for a client that declares the tasks extension, the foreground for others) or required (a task; a client without the extension is refused)")
	case !c.knownWord(words[0], taskRule):
	case len(words) > 2:
		c.errorf(words[2].at, "//elicit:task takes optional or required, then restartable; %q is one too many", words[2].text)
	case len(words) == 2 && slices.Contains(taskRule.known, words[1].text):
		c.errorf(words[1].at, "//elicit:task takes one value, optional or required; %q is one too many", words[1].text)
	case len(words) == 2 && !c.knownWord(words[1], restartRule):
	default:
		t.Task, t.Restartable = words[0].text, len(words) == 2
	}
}

var declDirectives = []string{directiveTool, directivePrompt, directiveResource}

// isDecl reports whether doc declares a tool, a prompt or a resource.
func isDecl(doc *ast.CommentGroup) bool {
	return slices.ContainsFunc(declDirectives, func(d string) bool { return hasDirective(doc, d) })
}

// declName reads the declaration's directive into t: its kind, and the
// name (a tool's or prompt's) or URI and MIME type (a resource's). It
// reports false when the kind is unknown (two directives); a bad name is
// reported, and the declaration checked on with it, so that its other
// problems are reported in the same run.
func (c *checker) declName(pt pendingTool, t *toolModel) bool {
	var found []*ast.Comment
	for k, d := range declDirectives {
		if cm := directiveComment(pt.doc, d); cm != nil {
			found = append(found, cm)
			t.Kind = declKind(k)
		}
	}
	if len(found) > 1 {
		slices.SortFunc(found, func(a, b *ast.Comment) int { return int(a.Pos() - b.Pos()) })
		c.errorf(found[1].Pos(), "%s declares one tool, prompt or resource: drop all but one of its directives", pt.spec.Name.Name)
		return false
	}
	cm := found[0]
	arg, _ := directiveArg(pt.doc, declDirectives[t.Kind])
	if t.Kind == declResource {
		c.resourceName(t, cm, strings.Fields(arg))
	} else {
		c.toolName(t, cm, arg)
	}
	c.claimName(pt.spec.Name.Name, t, cm)
	return true
}

// argAt is the position of word in the directive comment cm.
func argAt(cm *ast.Comment, word string) token.Pos {
	return cm.Pos() + token.Pos(max(strings.Index(cm.Text, word), 0))
}

// toolName reads the name of a tool or prompt: one word; a tool's within
// the spec's tool-name rules.
func (c *checker) toolName(t *toolModel, cm *ast.Comment, arg string) {
	directive := declDirectives[t.Kind]
	t.MCPName = arg
	switch {
	case arg == "":
		c.errorf(cm.Pos(), "%s needs the %s's name: %s NAME", directive, t.Kind, directive)
	case t.Kind == declTool:
		if problem := toolNameProblem(arg); problem != "" {
			c.errorf(argAt(cm, arg), "tool name %q %s: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, _, - and . (the spec's tool-name rules, SEP-986): write %s %s",
				arg, problem, directive, toolNameFix(arg))
		}
	case strings.ContainsAny(arg, " \t"):
		c.errorf(argAt(cm, arg), "prompt name %q has a space: a prompt's name is one word: write %s %s", arg, directive, toolNameFix(arg))
	}
}

// toolNameProblem says how name breaks the spec's tool-name rules, or "".
func toolNameProblem(name string) string {
	for _, r := range name {
		switch {
		case r == ' ' || r == '\t':
			return "has a space"
		case !toolNameRune(r):
			return fmt.Sprintf("has the character %q", r)
		}
	}
	if n := len(name); n > 128 {
		return fmt.Sprintf("is %d characters long", n)
	}
	return ""
}

func toolNameRune(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// toolNameFix is name within the tool-name rules: each run of other
// characters as one "_", none at the ends, at most 128 characters.
func toolNameFix(name string) string {
	var b strings.Builder
	under := false
	for _, r := range name {
		ok := toolNameRune(r)
		if ok {
			b.WriteRune(r)
		} else if !under {
			b.WriteByte('_')
		}
		under = !ok
	}
	fixed := strings.Trim(b.String(), "_")
	return cmp.Or(fixed[:min(len(fixed), 128)], "name")
}

// resourceName reads a resource's URI and MIME type from words.
func (c *checker) resourceName(t *toolModel, cm *ast.Comment, words []string) {
	if len(words) == 0 || len(words) > 2 {
		c.errorf(cm.Pos(), "%s needs the resource's URI, and at most its MIME type: %s URI [MIME-TYPE]", directiveResource, directiveResource)
		if len(words) == 0 {
			return
		}
	}
	uri := words[0]
	if problem := uriProblem(uri); problem != "" {
		c.errorf(argAt(cm, uri), "resource URI %q: %s", uri, problem)
	}
	t.MCPName, t.Template = uri, strings.Contains(uri, "{")
	if len(words) == 2 {
		if !strings.Contains(words[1], "/") {
			c.errorf(argAt(cm, words[1]), "resource %s: %q is no MIME type (type/subtype, for example text/plain)", uri, words[1])
		}
		t.MIMEType = words[1]
	}
}

// declaredAt is where a name was declared first in the package.
type declaredAt struct {
	pos    token.Pos
	goName string
}

// claimName reports a tool, prompt or resource declared twice in the
// package, at both declarations, each naming the other.
func (c *checker) claimName(goName string, t *toolModel, cm *ast.Comment) {
	if t.MCPName == "" {
		return
	}
	key := t.Kind.String() + " " + t.MCPName
	prev, dup := c.declared[key]
	if !dup {
		if c.declared == nil {
			c.declared = map[string]declaredAt{}
		}
		c.declared[key] = declaredAt{cm.Pos(), goName}
		return
	}
	what := map[declKind]string{declTool: "tool name", declPrompt: "prompt name", declResource: "resource URI"}[t.Kind]
	say := func(at token.Pos, other string, otherAt token.Pos) {
		c.errorf(at, "%s %q is declared twice, here and by %s at %s: rename one (a server has one %s of each, and the second registration would replace the first)",
			what, t.MCPName, other, c.relPos(otherAt), t.Kind)
	}
	say(prev.pos, goName, cm.Pos())
	say(cm.Pos(), prev.goName, prev.pos)
}

// uriProblem says what is wrong with a resource URI or URI template, or "".
func uriProblem(uri string) string {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "{}/") {
		return "a URI starts with its scheme (for example notes://{id})"
	}
	depth := 0
	for _, r := range uri {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth < 0 || depth > 1 {
			return "its braces do not pair: a template's variables are {name}"
		}
	}
	if depth != 0 || strings.Contains(uri, "{}") {
		return "its braces do not pair: a template's variables are {name}"
	}
	return ""
}

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
			fix := Edit{}
			if line != "" {
				fix = Edit{Pos: cm.Pos(), End: cm.End(), Text: line}
			}
			c.fixf(cm.Pos(), fix, "%s", msg)
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
// its first paragraph, without a leading name when it is a godoc sentence
// about the name (Go doc comments start with the name they document; the
// model and the user would read it): the name, then a verb in the third
// person (godocVerb), then more words. "is" or "are" go with the name, the
// next letter is capitalised: "Deploy deploys a service" → "Deploys a
// service", "Name is the full name" → "The full name". Any other first
// word after the name keeps the comment whole: "Include the tickets'
// attachments" is an imperative, not a sentence about Include.
func docText(cg *ast.CommentGroup, name string) string {
	text := firstParagraph(cg)
	rest, ok := strings.CutPrefix(text, name+" ")
	if !ok {
		return text
	}
	verb, after, _ := strings.Cut(rest, " ")
	if !godocVerb(strings.TrimRight(verb, ",:;.")) {
		return text
	}
	if verb == "is" || verb == "are" {
		rest = after
	}
	if rest == "" {
		return text
	}
	r, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(r)) + rest[size:]
}

// notVerbs are lower-case words ending in one s that are no verbs.
var notVerbs = map[string]bool{"its": true, "this": true, "his": true, "hers": true, "ours": true, "yours": true,
	"theirs": true, "us": true, "thus": true, "plus": true, "yes": true, "various": true, "previous": true}

// godocVerb reports whether w (a word without the punctuation after it)
// reads as the verb of a godoc sentence: "is", "are", or a word of
// lower-case letters ending in one s (sets, says, holds, has, reports,
// deploys), but none of notVerbs.
func godocVerb(w string) bool {
	if w == "is" || w == "are" {
		return true
	}
	if len(w) < 2 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || notVerbs[w] {
		return false
	}
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
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
