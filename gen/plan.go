package gen

import (
	"cmp"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// checkOutputsFree reports each file of p that elicitgen would write over
// but did not write itself (named *_elicit.go without elicitgen's header
// line: hand-written, or another generator's), at its package clause:
// elicitgen never overwrites such a file.
func (c *checker) checkOutputsFree(p *pkgModel) {
	for _, f := range c.pkg.Syntax {
		name := sourceName(c.fset, f)
		if slices.Contains(p.Generated, name) {
			continue
		}
		for _, file := range p.Files {
			if file.Output == name {
				c.errorf(f.Package, "%s is where elicitgen writes the code generated for %s, and elicitgen did not write it (its first line is not %q): rename it: elicitgen never overwrites a file it did not write",
					filepath.Base(name), filepath.Base(file.Source), "// "+header)
			}
		}
	}
}

// nameGenerated decides the names of what p's generated files declare
// that is not API (schema variables, enum index functions, answer
// converters) and the names of their imports. Internal names are plain
// camelCase behind an "elicit" prefix (elicitPickSchema), which user code,
// test files included (they are not loaded), is unlikely to use; "_" is
// added while the package (outside elicitgen's files) or another generated
// declaration has one.
func (c *checker) nameGenerated(p *pkgModel) {
	scope := c.pkg.Types.Scope()
	taken := func(n string) bool {
		obj := scope.Lookup(n)
		if obj == nil {
			return false
		}
		file := c.fset.File(obj.Pos())
		return file == nil || !strings.HasSuffix(file.Name(), generatedSuffix)
	}
	used := map[string]bool{}
	alloc := func(base string, suffixes ...string) string {
		for {
			names := []string{base}
			for _, s := range suffixes {
				names = append(names, base+s)
			}
			if !slices.ContainsFunc(names, func(n string) bool { return used[n] || taken(n) }) {
				for _, n := range names {
					used[n] = true
				}
				return base
			}
			base += "_"
		}
	}
	nameIndexes(p, alloc)
	for _, f := range p.Files {
		for _, form := range f.Forms {
			form.SchemaVar = alloc("elicit"+form.Name+"Schema", "Value")
		}
		for _, t := range f.Tools {
			t.AnswersFunc = alloc("elicit" + t.Name + "Answers")
			for _, s := range t.Steps {
				s.Digest = stepDigest(s)
			}
		}
		f.Imports = c.importNames(f)
	}
}

// nameIndexes names each enum's index function and gives it a home: the
// generated file of the first form that uses the enum, in a file without
// build constraints when one does, so that the function is built wherever
// a file that calls it is. An enum that only files with constraints use
// is copied for each of them (each declares its own function): a form of
// x_linux.go and one of y_amd64.go share no file that both builds build.
func nameIndexes(p *pkgModel, alloc func(string, ...string) string) {
	users := map[*enumModel]int{} // files using each enum without constraints
	for _, f := range p.Files {
		for _, fd := range enumFields(f) {
			if f.Build == "" {
				users[fd.Enum]++
			} else if _, ok := users[fd.Enum]; !ok {
				users[fd.Enum] = 0
			}
		}
	}
	clones := map[[2]any]*enumModel{} // (file, enum) → its copy
	for _, f := range p.Files {
		for _, fd := range enumFields(f) {
			if f.Build != "" && users[fd.Enum] == 0 {
				key := [2]any{f, fd.Enum}
				if clones[key] == nil {
					e := *fd.Enum
					clones[key] = &e
				}
				fd.Enum = clones[key]
			}
		}
	}
	unconstrainedFirst := slices.Clone(p.Files)
	constrained := func(f *fileModel) int {
		if f.Build != "" {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(unconstrainedFirst, func(a, b *fileModel) int { return cmp.Compare(constrained(a), constrained(b)) })
	for _, f := range unconstrainedFirst {
		for _, form := range f.Forms {
			for _, fd := range form.Fields {
				if fd.Enum == nil || fd.Enum.Index != "" {
					continue
				}
				base := "elicit" + form.Name + fd.GoName + "Index"
				if fd.Enum.Named != nil {
					base = "elicit" + namedTypeName(fd.Enum.Named) + "Index"
				}
				fd.Enum.Index = alloc(base)
				form.Indexes = append(form.Indexes, fd)
			}
		}
	}
}

// enumFields are the fields of f's forms that have an enum.
func enumFields(f *fileModel) []*fieldModel {
	var fields []*fieldModel
	for _, form := range f.Forms {
		for _, fd := range form.Fields {
			if fd.Enum != nil {
				fields = append(fields, fd)
			}
		}
	}
	return fields
}

// importNames maps every package the file's generated code (and a stub of
// its tools) may refer to, to the name it goes by: its own, or with "_"
// added when a package-level identifier or another import has it.
func (c *checker) importNames(file *fileModel) map[string]string {
	paths := []string{runtimePath, implPath, mcpPath, jsonschemaPath, "context", "encoding/json", "fmt", "math", "net/url", "time"}
	own := map[string]string{runtimePath: runtimeName}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && p != c.pkg.Types && own[p.Path()] == "" && !slices.Contains(paths, p.Path()) {
				paths = append(paths, p.Path())
				own[p.Path()] = p.Name()
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		}
	}
	for _, form := range file.Forms {
		for _, sf := range form.Shape {
			walk(sf.Type)
		}
	}
	for _, t := range file.Tools {
		walk(t.Args)
	}
	names := map[string]string{}
	used := map[string]bool{}
	scope := c.pkg.Types.Scope()
	for _, path := range paths {
		name := own[path]
		if name == "" {
			name = path[strings.LastIndexByte(path, '/')+1:]
		}
		for used[name] || scope.Lookup(name) != nil {
			name += "_"
		}
		used[name] = true
		names[path] = name
	}
	return names
}

// handlerMethods is the method set of t's handler interface: the
// outcomes (Declined and Cancelled only when a step asked before Run or
// Complete can end the flow: a tool with no steps has none, and a during
// step's decline reaches Run), Unavailable when a step's fallback is
// handler, then each step's own methods in step order.
func handlerMethods(t *toolModel) []handlerMethod {
	ms := []handlerMethod{{Name: "Complete", Kind: methodComplete}}
	if t.Task != "" {
		ms[0] = handlerMethod{Name: "Run", Kind: methodRun}
	}
	if slices.ContainsFunc(t.Steps, func(s *stepModel) bool { return !s.During }) {
		ms = append(ms, handlerMethod{Name: "Declined", Kind: methodDeclined}, handlerMethod{Name: "Cancelled", Kind: methodCancelled})
	}
	if slices.ContainsFunc(t.Steps, func(s *stepModel) bool { return s.Fallback == "handler" }) {
		ms = append(ms, handlerMethod{Name: "Unavailable", Kind: methodUnavailable})
	}
	for _, s := range t.Steps {
		if s.MessageHandler {
			ms = append(ms, handlerMethod{Name: s.GoName + "Message", Kind: methodMessage, Step: s})
		}
		if s.AskHandler {
			ms = append(ms, handlerMethod{Name: "Ask" + s.GoName, Kind: methodAsk, Step: s})
		}
		if s.URL {
			ms = append(ms, handlerMethod{Name: s.GoName + "URL", Kind: methodURL, Step: s})
		}
		if s.Fallback == "preview" {
			ms = append(ms, handlerMethod{Name: "Preview" + s.GoName, Kind: methodPreview, Step: s})
		}
	}
	return ms
}

// generatedNames lists the package-level identifiers generated for t.
func generatedNames(t *toolModel) []string {
	names := []string{t.Name + "Step", t.Name + "Answers", t.Name + "Handler", "Register" + t.Name}
	if t.Task != "" {
		names = append(names, t.TaskType())
	}
	for _, s := range t.Steps {
		names = append(names, t.Name+"Step"+s.GoName)
	}
	return names
}
