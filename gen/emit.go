package gen

import (
	"bytes"
	"fmt"
	"go/types"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
)

// Import paths of generated code.
const (
	runtimePath = "github.com/elicitgen/elicitgen/runtime"
	mcpPath     = "github.com/modelcontextprotocol/go-sdk/mcp"
	// runtimeName is the one fixed name generated code gives the runtime.
	runtimeName = "elicitrt"
)

// Output is what Emit produces: the bytes of every generated file keyed by
// absolute path, and the generated files of ours that no source produces
// any more.
type Output struct {
	Files map[string][]byte
	Stale []string
}

// Emit renders the model. It never touches the disk. Files are rendered
// concurrently, each independent of the others.
func Emit(m *Model) (*Output, error) {
	type job struct {
		pkg   *Package
		file  *File
		enums map[string]bool // the enum index functions this file declares
		src   []byte
		err   error
	}
	var jobs []*job
	for _, pkg := range m.Packages {
		// An enum's index function goes to the first file, in order, whose
		// forms use the enum.
		owner := map[string]bool{}
		for _, file := range pkg.Files {
			j := &job{pkg: pkg, file: file, enums: map[string]bool{}}
			for _, form := range file.Forms {
				e := &formEmitter{pkg: pkg, form: form}
				for _, fd := range form.Fields {
					if fd.Enum != nil && !owner[e.enumIndexName(fd)] {
						owner[e.enumIndexName(fd)] = true
						j.enums[e.enumIndexName(fd)] = true
					}
				}
			}
			jobs = append(jobs, j)
		}
	}
	next := make(chan *job)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				j.src, j.err = emitFile(j.pkg, j.file, j.enums)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()

	out := &Output{Files: map[string][]byte{}}
	for _, j := range jobs {
		if j.err != nil {
			return nil, j.err
		}
		out.Files[j.file.Output] = j.src
	}
	for _, pkg := range m.Packages {
		for _, g := range pkg.Generated {
			if _, ok := out.Files[g]; !ok {
				out.Stale = append(out.Stale, g)
			}
		}
	}
	return out, nil
}

// emitFile renders one generated file. enums lists the enum index
// functions it declares (each once, with the first form that needs it).
func emitFile(pkg *Package, file *File, enums map[string]bool) ([]byte, error) {
	f := jen.NewFilePathName(pkg.Path, pkg.Name)
	f.HeaderComment("// " + Header)
	f.HeaderComment("// source: " + filepath.Base(file.Source))
	f.ImportAlias(runtimePath, runtimeName)
	f.ImportName(mcpPath, "mcp")
	// An import's name must not also be declared at package level (say
	// var json = jsoniter.ConfigCompatibleWithStandardLibrary): alias the
	// packages whose name is taken.
	imports := map[string]bool{} // the names the file's imports go by
	for path, name := range importNames(file) {
		if pkg.types != nil && pkg.types.Scope().Lookup(name) != nil {
			scope := pkg.types.Scope()
			alias := name + "_"
			for scope.Lookup(alias) != nil {
				alias += "_"
			}
			f.ImportAlias(path, alias)
			name = alias
		}
		imports[name] = true
	}

	// The version lock and the forms are written as text (emit_form.go);
	// jennifer names their imports, in order of first use, so that the
	// tools' code it renders next (emit_tool.go) shares the names, and
	// renders the header, the import block and the tools.
	names := map[string]string{}
	var qualErr error
	qual := func(path string) string {
		if n, ok := names[path]; ok {
			return n
		}
		var b bytes.Buffer
		if err := jen.Qual(path, "X").RenderWithFile(&b, f); err != nil && qualErr == nil {
			qualErr = err
		}
		n := strings.TrimSuffix(strings.TrimSpace(b.String()), ".X")
		names[path] = n
		return n
	}
	// The body goes after room for the header and the imports, which are
	// known only once the body is written.
	const room = 2048
	size := room + 1024
	for _, form := range file.Forms {
		size += 1280 + 640*len(form.Fields) + len(form.Schema)*5/4
	}
	body := &goText{b: make([]byte, room, size)}
	versionText(body, qual)
	rts, locals := map[string]string{}, map[string]string{}
	for _, form := range file.Forms {
		e := &formText{formEmitter: &formEmitter{pkg: pkg, form: form, imports: imports, names: locals}, w: body, qual: qual, rts: rts}
		e.emit(enums)
	}
	if qualErr != nil {
		return nil, fmt.Errorf("rendering %s: %w", file.Output, qualErr)
	}
	for _, tool := range file.Tools {
		if err := emitTool(f, pkg, tool); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", file.Output, err)
	}
	// Splice: header and imports, then the text, then the tools.
	rendered := buf.Bytes()
	cut := importsEnd(rendered)
	if cut < 0 {
		return nil, fmt.Errorf("rendering %s: no import block in\n%s", file.Output, rendered)
	}
	head, tools := rendered[:cut], rendered[cut:]
	if len(head) <= room {
		out := body.b[room-len(head):]
		copy(out, head)
		return append(out, tools...), nil
	}
	out := make([]byte, 0, len(rendered)+len(body.b)-room)
	out = append(out, head...)
	out = append(out, body.b[room:]...)
	return append(out, tools...), nil
}

// importsEnd returns the offset just after the import declaration of a
// gofmt-formatted file that has exactly one, or -1.
func importsEnd(src []byte) int {
	i := bytes.Index(src, []byte("\nimport "))
	if i < 0 {
		return -1
	}
	i++
	if bytes.HasPrefix(src[i:], []byte("import (\n")) {
		j := bytes.Index(src[i:], []byte("\n)\n"))
		if j < 0 {
			return -1
		}
		return i + j + len("\n)\n")
	}
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		return -1
	}
	return i + j + 1
}

// importNames maps every package the file's generated code may refer to, to
// its usual name.
func importNames(file *File) map[string]string {
	names := map[string]string{
		runtimePath: runtimeName, mcpPath: "mcp", "encoding/json": "json", "unicode/utf8": "utf8",
		"math": "math", "time": "time", "context": "context", "fmt": "fmt",
	}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil {
				names[p.Path()] = p.Name()
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
	return names
}

type formEmitter struct {
	pkg     *Package
	form    *Form
	imports map[string]bool   // names of the generated file's imports
	names   map[string]string // local name → name used
}

// local returns a local name that does not collide with any package-level
// identifier of the form's package or any import of the generated file.
func (e *formEmitter) local(name string) string {
	if e.names == nil {
		e.names = map[string]string{}
	}
	if n, ok := e.names[name]; ok {
		return n
	}
	n := name
	for e.imports[n] || e.pkg.types != nil && e.pkg.types.Scope().Lookup(n) != nil {
		n += "_"
	}
	e.names[name] = n
	return n
}

func (e *formEmitter) helper(parts ...string) string {
	return "_elicit_" + strings.Join(parts, "_")
}

// embeddedFields reports, by field index, which fields of the form's struct
// are embedded.
func (e *formEmitter) embeddedFields() map[int]bool {
	embedded := map[int]bool{}
	if e.pkg.types == nil {
		return embedded
	}
	obj, ok := e.pkg.types.Scope().Lookup(e.form.Name).(*types.TypeName)
	if !ok {
		return embedded
	}
	if st, ok := obj.Type().Underlying().(*types.Struct); ok {
		for i := range st.NumFields() {
			embedded[i] = st.Field(i).Embedded()
		}
	}
	return embedded
}

func (e *formEmitter) enumIndexName(fd *Field) string {
	if fd.Enum.Named != nil {
		return e.helper(namedTypeName(fd.Enum.Named), "index")
	}
	return e.helper(e.form.Name, fd.GoName, "index")
}

func lengthReason(fd *Field) string {
	return boundsReason(fd, "characters")
}

func itemsReason(fd *Field) string {
	return boundsReason(fd, "items")
}

func boundsReason(fd *Field, unit string) string {
	units := func(n int64) string {
		if n == 1 {
			return strings.TrimSuffix(unit, "s")
		}
		return unit
	}
	switch {
	case fd.HasMin && fd.HasMax:
		return fmt.Sprintf("must have %d to %d %s", fd.MinInt, fd.MaxInt, units(fd.MaxInt))
	case fd.HasMin:
		return fmt.Sprintf("must have at least %d %s", fd.MinInt, units(fd.MinInt))
	}
	return fmt.Sprintf("must have at most %d %s", fd.MaxInt, units(fd.MaxInt))
}

func numberReason(fd *Field) string {
	lo, hi := strconv.FormatFloat(fd.MinNum, 'g', -1, 64), strconv.FormatFloat(fd.MaxNum, 'g', -1, 64)
	switch {
	case fd.HasMin && fd.HasMax:
		return fmt.Sprintf("must be a number from %s to %s", lo, hi)
	case fd.HasMin:
		return "must be at least " + lo
	}
	return "must be at most " + hi
}

// typeExpr spells a Go type for generated code, qualifying foreign names.
func (e *formEmitter) typeExpr(t types.Type) *jen.Statement {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil || obj.Pkg().Path() == e.pkg.Path {
			return jen.Id(obj.Name())
		}
		return jen.Qual(obj.Pkg().Path(), obj.Name())
	case *types.Pointer:
		return jen.Op("*").Add(e.typeExpr(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(e.typeExpr(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(e.typeExpr(t.Elem()))
	case *types.Map:
		return jen.Map(e.typeExpr(t.Key())).Add(e.typeExpr(t.Elem()))
	case *types.Interface:
		return jen.Any()
	}
	return jen.Id(types.TypeString(t, nil))
}
