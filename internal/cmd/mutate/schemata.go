package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mutant schemata: every mutant in one build. Each function a mutant
// changes keeps its body, and a copy of it with the mutant's edits is
// added under another name; the original's first statement, written on
// the line of its opening brace so that no line moves, calls the copy
// when the environment variable MutantVar names the mutant:
//
//	func (s *legacySession) idleFor(now time.Time) time.Duration {if elicitgenMutant == "h02-busy-session-closed.txt" { return s.mutant3_idleFor(now) };
//
// So each test binary is built once for every mutant of the run, and each
// mutant is a run of that binary with MutantVar set. A mutant whose edit
// does not compile breaks that build; the runner then builds those
// mutants one by one (Run), which names the culprit.

// MutantVar is the environment variable that selects the mutant.
const MutantVar = "ELICITGEN_MUTANT"

// binCacheVar is runtime/elicittest/hosttest's BinCacheVar (mutate links no
// test helper).
const binCacheVar = "ELICITGEN_TEST_BIN_CACHE"

// mutantIdent is the package variable the dispatches read.
const mutantIdent = "elicitgenMutant"

// variant is one mutant's copy of one function.
type variant struct {
	mutant string // the mutation's file name, MutantVar's value
	text   string // the function's source with the mutant's edits
}

// Schemata returns the files of an overlay holding every mutant of ms:
// the changed files of the packages under root by path, and one new file
// per package declaring mutantIdent. A mutant that changes a function's
// signature cannot be called in its place: it is left out, in alone.
func Schemata(root string, ms []*Mutation) (files map[string][]byte, alone []*Mutation, err error) {
	variants := map[string]map[string][]variant{} // path → function → copies
	for _, m := range ms {
		funcs, err := mutatedFuncs(root, m)
		if errors.Is(err, errSignature) {
			alone = append(alone, m)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for key, text := range funcs {
			path, fn, _ := strings.Cut(key, "\x00")
			if variants[path] == nil {
				variants[path] = map[string][]variant{}
			}
			variants[path][fn] = append(variants[path][fn], variant{m.File, text})
		}
	}
	files = map[string][]byte{}
	n := 0
	for _, path := range slices.Sorted(maps.Keys(variants)) {
		src, pkg, err := schemaFile(path, variants[path], &n)
		if err != nil {
			return nil, nil, err
		}
		files[path] = src
		decl := filepath.Join(filepath.Dir(path), "elicitgen_mutant_schemata.go")
		files[decl] = fmt.Appendf(nil, "package %s\n\nimport \"os\"\n\nvar %s = os.Getenv(%q)\n", pkg, mutantIdent, MutantVar)
	}
	return files, alone, nil
}

// errSignature is mutatedFuncs's error for a mutant that changes the
// signature of a function.
var errSignature = errors.New("the mutant changes a function's signature")

// mutatedFuncs applies m's edits each to its function alone and returns
// the edited functions' source, keyed by file path and function name
// (joined by a NUL byte).
func mutatedFuncs(root string, m *Mutation) (map[string]string, error) {
	out, orig := map[string]string{}, map[string]string{}
	for _, e := range m.Edits {
		path, text, err := findFunc(root, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.File, err)
		}
		key := path + "\x00" + e.Func
		orig[key] = text
		if prev, ok := out[key]; ok {
			text = prev
		}
		if strings.Count(text, e.Find) != 1 {
			return nil, fmt.Errorf("%s: its snippet is not once in func %s of %s", m.File, e.Func, e.Pkg)
		}
		out[key] = strings.Replace(text, e.Find, e.Replace, 1)
	}
	for key, text := range out {
		if signature(text) != signature(orig[key]) {
			return nil, errSignature
		}
	}
	return out, nil
}

// signature is the text of a function from func to its body's brace,
// or "" if it does not parse.
func signature(text string) string {
	const head = "package p\n\n"
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", head+text, parser.SkipObjectResolution)
	if err != nil || len(file.Decls) != 1 {
		return ""
	}
	fd, ok := file.Decls[0].(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return ""
	}
	return text[:fset.Position(fd.Body.Lbrace).Offset-len(head)]
}

// findFunc is the file and source text of e's function, as on disk.
func findFunc(root string, e Edit) (string, string, error) {
	path, src, start, end, err := locateFunc(root, e, nil)
	if err != nil {
		return "", "", err
	}
	return path, string(src[start:end]), nil
}

// insertion is text put at an offset of a file.
type insertion struct {
	at   int
	text string
	cut  int // bytes of the original replaced from at
}

// schemaFile rewrites the file at path: each function of variants gets
// its dispatches and its copies, appended to the file. n numbers the
// copies across files. It returns the new source and the package name.
func schemaFile(path string, variants map[string][]variant, n *int) ([]byte, string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, "", err
	}
	var edits []insertion
	var copies []string
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || variants[funcName(fd)] == nil || fd.Body == nil {
			continue
		}
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		names, named := nameParams(fd, off)
		edits = append(edits, named...)
		var dispatch strings.Builder
		for _, v := range variants[funcName(fd)] {
			*n++
			name := fmt.Sprintf("mutant%d_%s", *n, fd.Name.Name)
			renamed, err := rename(v.text, name)
			if err != nil {
				return nil, "", fmt.Errorf("%s: %w", v.mutant, err)
			}
			copies = append(copies, renamed)
			dispatch.WriteString(dispatchStmt(fd, names, name, v.mutant))
		}
		edits = append(edits, insertion{at: off(fd.Body.Lbrace) + 1, text: dispatch.String()})
	}
	slices.SortFunc(edits, func(a, b insertion) int { return b.at - a.at })
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.at], []byte(e.text), out[e.at+e.cut:])
	}
	for _, c := range copies {
		out = append(append(out, "\n\n"...), c...)
	}
	return append(out, '\n'), file.Name.Name, nil
}

// callNames are what a dispatch passes on: the receiver, the type
// parameters and the parameters, the last one spread when variadic.
type callNames struct {
	recv     string
	types    []string
	params   []string
	variadic bool
}

// nameParams names the receiver and every parameter that has no usable
// name (none, or _), so that a dispatch can pass them on, and returns the
// names and the edits that name them.
func nameParams(fd *ast.FuncDecl, off func(token.Pos) int) (callNames, []insertion) {
	var c callNames
	var edits []insertion
	k := 0
	name := func(f *ast.Field) []string {
		if len(f.Names) == 0 {
			k++
			id := "mutantArg" + strconv.Itoa(k)
			edits = append(edits, insertion{at: off(f.Type.Pos()), text: id + " "})
			return []string{id}
		}
		var ids []string
		for _, n := range f.Names {
			id := n.Name
			if id == "_" {
				k++
				id = "mutantArg" + strconv.Itoa(k)
				edits = append(edits, insertion{at: off(n.Pos()), text: id, cut: 1})
			}
			ids = append(ids, id)
		}
		return ids
	}
	if fd.Recv != nil && len(fd.Recv.List) == 1 {
		c.recv = name(fd.Recv.List[0])[0]
	}
	if fd.Type.TypeParams != nil {
		for _, f := range fd.Type.TypeParams.List {
			for _, n := range f.Names {
				c.types = append(c.types, n.Name)
			}
		}
	}
	for _, f := range fd.Type.Params.List {
		c.params = append(c.params, name(f)...)
		_, c.variadic = f.Type.(*ast.Ellipsis)
	}
	return c, edits
}

// dispatchStmt is the statement, on one line, that calls copy when
// mutant is selected.
func dispatchStmt(fd *ast.FuncDecl, c callNames, copy, mutant string) string {
	call := copy
	if c.recv != "" {
		call = c.recv + "." + copy
	}
	if len(c.types) > 0 {
		call += "[" + strings.Join(c.types, ", ") + "]"
	}
	args := strings.Join(c.params, ", ")
	if c.variadic {
		args += "..."
	}
	call += "(" + args + ")"
	if fd.Type.Results == nil || len(fd.Type.Results.List) == 0 {
		return fmt.Sprintf("if %s == %q { %s; return };", mutantIdent, mutant, call)
	}
	return fmt.Sprintf("if %s == %q { return %s };", mutantIdent, mutant, call)
}

// rename gives the function of text the name name.
func rename(text, name string) (string, error) {
	const head = "package p\n\n"
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", head+text, parser.SkipObjectResolution)
	if err != nil || len(file.Decls) != 1 {
		return "", fmt.Errorf("the edited function does not parse: %v", err)
	}
	fd, ok := file.Decls[0].(*ast.FuncDecl)
	if !ok {
		return "", fmt.Errorf("the edited text is not one function")
	}
	at := fset.Position(fd.Name.Pos()).Offset - len(head)
	var b bytes.Buffer
	b.WriteString(text[:at])
	b.WriteString(name)
	b.WriteString(text[at+len(fd.Name.Name):])
	return b.String(), nil
}

// RunAll runs ms, parallel at once, from one build of each named test
// package holding every mutant (Schemata); a mutant that does not apply
// is reported as Run reports it, and the mutants of a package whose
// build fails run one by one (Run). done is called as each mutant ends.
func RunAll(root, scratch string, ms []*Mutation, timeout time.Duration, parallel int, done func(int, time.Duration)) []Result {
	results := make([]Result, len(ms))
	var ok []*Mutation
	for i, m := range ms {
		results[i].M = m
		if _, err := Apply(root, m); err != nil {
			results[i].Err = err
			continue
		}
		ok = append(ok, m)
	}
	overlay, bins, alone := buildSchemata(root, scratch, ok, parallel)
	// The servers that tests build (hosttest.BuildBinary) are the same
	// for every mutant too: built once, into this cache.
	cache := binCacheVar + "=" + filepath.Join(scratch, "bin-cache")
	if err := os.MkdirAll(filepath.Join(scratch, "bin-cache"), 0o755); err != nil {
		cache = binCacheVar + "="
	}
	each(len(ms), parallel, func(i int) {
		m, t0 := ms[i], time.Now()
		if results[i].Err != nil {
			done(i, 0)
			return
		}
		if !builtAll(bins, m) || slices.Contains(alone, m) {
			results[i] = Run(root, scratch, m, timeout)
		} else {
			for _, t := range m.Tests {
				if !judge(&results[i], t.Pkg, t, runTest(root, overlay, bins[t.Pkg], t, timeout, MutantVar+"="+m.File, cache)) {
					break
				}
			}
		}
		done(i, time.Since(t0))
	})
	return results
}

// buildSchemata writes the overlay of ms's schemata and builds each
// named test package's binary with it, parallel at once. The map has
// the binaries that built; alone, the mutants left out of the schemata.
func buildSchemata(root, scratch string, ms []*Mutation, parallel int) (string, map[string]string, []*Mutation) {
	bins := map[string]string{}
	files, alone, err := Schemata(root, ms)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutate: the mutants run one by one: %v\n", err)
		return "", bins, nil
	}
	for _, m := range alone {
		fmt.Fprintf(os.Stderr, "mutate: %s changes a signature and runs alone\n", m.File)
	}
	dir := filepath.Join(scratch, "schemata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: the mutants run one by one: %v\n", err)
		return "", bins, nil
	}
	overlay, err := writeOverlay(dir, files)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutate: the mutants run one by one: %v\n", err)
		return "", bins, nil
	}
	var pkgs []string
	for _, m := range ms {
		for _, p := range pkgsOf(m.Tests) {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	var mu sync.Mutex
	start := time.Now()
	defer func() {
		fmt.Fprintf(os.Stderr, "mutate: %d test binaries built in %s\n", len(bins), time.Since(start).Round(time.Second))
	}()
	each(len(pkgs), parallel, func(i int) {
		bin := filepath.Join(dir, fmt.Sprintf("test%d", i))
		out, err := buildTest(root, overlay, bin, pkgs[i])
		if err != nil {
			fmt.Fprintf(os.Stderr, "mutate: %s does not build with every mutant, its mutants run one by one:\n%s\n", pkgs[i], out)
			return
		}
		mu.Lock()
		bins[pkgs[i]] = bin
		mu.Unlock()
	})
	return overlay, bins, alone
}

// builtAll reports whether every package of m's tests has a binary.
func builtAll(bins map[string]string, m *Mutation) bool {
	for _, t := range m.Tests {
		if bins[t.Pkg] == "" {
			return false
		}
	}
	return true
}

// each calls f(0) to f(n-1), parallel at once.
func each(n, parallel int, f func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, parallel) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
