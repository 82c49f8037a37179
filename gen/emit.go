package gen

import (
	"bytes"
	"fmt"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
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

// Emit renders the model. It never touches the disk.
func Emit(m *Model) (*Output, error) {
	out := &Output{Files: map[string][]byte{}}
	for _, pkg := range m.Packages {
		emittedEnums := map[string]bool{}
		for _, file := range pkg.Files {
			src, err := emitFile(pkg, file, emittedEnums)
			if err != nil {
				return nil, err
			}
			out.Files[file.Output] = src
		}
		for _, g := range pkg.Generated {
			if _, ok := out.Files[g]; !ok {
				out.Stale = append(out.Stale, g)
			}
		}
	}
	return out, nil
}

func emitFile(pkg *Package, file *File, emittedEnums map[string]bool) ([]byte, error) {
	f := jen.NewFilePathName(pkg.Path, pkg.Name)
	f.HeaderComment("// " + Header)
	f.HeaderComment("// source: " + filepath.Base(file.Source))
	f.ImportAlias(runtimePath, runtimeName)
	f.ImportName(mcpPath, "mcp")
	// An import's name must not also be declared at package level (say
	// var json = jsoniter.ConfigCompatibleWithStandardLibrary): alias the
	// packages whose name is taken.
	if pkg.types != nil {
		scope := pkg.types.Scope()
		for path, name := range importNames(file) {
			if scope.Lookup(name) == nil {
				continue
			}
			alias := name + "_"
			for scope.Lookup(alias) != nil {
				alias += "_"
			}
			f.ImportAlias(path, alias)
		}
	}

	f.Comment("The build fails on the next lines when this file and the elicitgen runtime")
	f.Comment("come from different versions of elicitgen: run the elicitgen of the same")
	f.Comment("module version as the runtime, then go generate.")
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Lit(elicitrt.GenVersion).Op("-").Qual(runtimePath, "MinVersion")),
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Qual(runtimePath, "MaxVersion").Op("-").Lit(elicitrt.GenVersion)),
	)
	for _, form := range file.Forms {
		e := &formEmitter{pkg: pkg, form: form}
		e.emit(f, emittedEnums)
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
	return buf.Bytes(), nil
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
	pkg   *Package
	form  *Form
	names map[string]string // local name → name used
}

// local returns a local variable name that does not collide with any
// package-level identifier of the form's package.
func (e *formEmitter) local(name string) string {
	if e.names == nil {
		e.names = map[string]string{}
	}
	if n, ok := e.names[name]; ok {
		return n
	}
	n := name
	for e.pkg.types != nil && e.pkg.types.Scope().Lookup(n) != nil {
		n += "_"
	}
	e.names[name] = n
	return n
}

func (e *formEmitter) id(name string) *jen.Statement { return jen.Id(e.local(name)) }

func (e *formEmitter) helper(parts ...string) string {
	return "_elicit_" + strings.Join(parts, "_")
}

func (e *formEmitter) emit(f *jen.File, emittedEnums map[string]bool) {
	form := e.form
	name := form.Name
	schemaVar := e.helper(name, "schema")
	schemaValue := e.helper(name, "schemaValue")

	if form.Shape != nil {
		embedded := e.embeddedFields()
		fields := make([]jen.Code, len(form.Shape))
		for i, sf := range form.Shape {
			if embedded[i] {
				// An embedded field is spelled as its type alone: a named
				// field of the same type would not convert.
				fields[i] = e.typeExpr(sf.Type)
				continue
			}
			fields[i] = jen.Id(sf.Name).Add(e.typeExpr(sf.Type))
		}
		f.Comment(fmt.Sprintf("A \"cannot convert\" error here means %s changed after elicitgen ran: run go generate.", name))
		f.Func().Id("_").Params().Block(
			jen.Id("_").Op("=").Struct(fields...).Call(jen.Id(name).Values()),
		)
	}

	f.Comment(fmt.Sprintf("%s is the precomputed requestedSchema of %s.", schemaVar, name))
	f.Var().Defs(
		jen.Id(schemaVar).Op("=").Qual("encoding/json", "RawMessage").Call(jen.Lit(string(form.Schema))),
		jen.Id(schemaValue).Any().Op("=").Id(schemaVar),
	)

	f.Comment(fmt.Sprintf("ElicitSchema returns the requestedSchema of %s, precomputed at generate time.", name))
	f.Comment("The bytes are shared: do not modify them.")
	f.Func().Params(jen.Id(name)).Id("ElicitSchema").Params().Qual("encoding/json", "RawMessage").Block(
		jen.Return(jen.Id(schemaVar)),
	)

	f.Comment(fmt.Sprintf("ElicitParams returns form-mode elicitation params that ask message with the schema of %s.", name))
	f.Func().Params(jen.Id(name)).Id("ElicitParams").Params(jen.Id("message").String()).Op("*").Qual(mcpPath, "ElicitParams").Block(
		jen.Return(jen.Op("&").Qual(mcpPath, "ElicitParams").Values(jen.Dict{
			jen.Id("Mode"):            jen.Lit("form"),
			jen.Id("Message"):         jen.Id("message"),
			jen.Id("RequestedSchema"): jen.Id(schemaValue),
		})),
	)

	for _, fd := range form.Fields {
		if fd.Enum == nil {
			continue
		}
		fn := e.enumIndexName(fd)
		if emittedEnums[fn] {
			continue
		}
		emittedEnums[fn] = true
		cases := make([]jen.Code, 0, len(fd.Enum.Values)+1)
		for i, v := range fd.Enum.Values {
			cases = append(cases, jen.Case(jen.Lit(v.Value)).Block(jen.Return(jen.Lit(i))))
		}
		f.Comment(fmt.Sprintf("%s returns the position of s among the allowed values, or -1.", fn))
		f.Func().Id(fn).Params(jen.Id("s").String()).Int().Block(
			jen.Switch(jen.Id("s")).Block(cases...),
			jen.Return(jen.Lit(-1)),
		)
	}

	x, v, errs, content := "x", e.local("v"), e.local("errs"), "content"
	body := []jen.Code{
		jen.Var().Id(v).Id(name),
		jen.Var().Id(errs).Index().Qual(runtimePath, "FieldError"),
	}
	for _, fd := range form.Fields {
		body = append(body, e.decodeField(fd)...)
	}
	body = append(body,
		jen.If(jen.Id(errs).Op("!=").Nil()).Block(
			jen.Return(jen.Op("&").Qual(runtimePath, "ContentError").Values(jen.Id("Fields").Op(":").Id(errs))),
		),
		jen.Op("*").Id(x).Op("=").Id(v),
		jen.Return(jen.Nil()),
	)
	f.Comment(fmt.Sprintf("DecodeElicit decodes accepted form content into x, strictly: JSON types, enum values,"))
	f.Comment("bounds, lengths, formats and required properties are checked, defaults fill absent")
	f.Comment("optional properties and unknown keys are ignored. On failure x is left unchanged and")
	f.Comment("the error is a *elicitrt.ContentError listing every bad property.")
	f.Func().Params(jen.Id(x).Op("*").Id(name)).Id("DecodeElicit").Params(jen.Id(content).Map(jen.String()).Any()).Error().Block(body...)
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

// clause is one link of an if / else-if chain: an optional init statement,
// a condition that means "invalid", and the reason reported then.
type clause struct {
	init   jen.Code
	cond   jen.Code
	reason jen.Code
}

// decodeField emits the statements that decode one property into v.
func (e *formEmitter) decodeField(fd *Field) []jen.Code {
	raw, ok := e.local("raw"), e.local("ok")
	v, errs := e.local("v"), e.local("errs")
	prop := jen.Lit(fd.Property)
	fail := func(reason jen.Code) jen.Code {
		return jen.Id(errs).Op("=").Append(jen.Id(errs), jen.Qual(runtimePath, "FieldError").Values(jen.Dict{
			jen.Id("Property"): prop,
			jen.Id("Reason"):   reason,
		}))
	}
	target := jen.Id(v).Dot(fd.GoName)
	var chain []clause
	var assign []jen.Code
	valueType := e.typeExpr(fd.Value)
	set := func(val *jen.Statement) {
		if fd.Pointer {
			tmp := e.local("p")
			assign = append(assign, jen.Id(tmp).Op(":=").Add(val), target.Clone().Op("=").Op("&").Id(tmp))
			return
		}
		assign = append(assign, target.Clone().Op("=").Add(val))
	}
	convert := func(id string) *jen.Statement {
		if _, basic := types.Unalias(fd.Value).(*types.Basic); basic && (fd.Kind == KindString || fd.Kind == KindBool || fd.Kind == KindNumber && !fd.Float32) {
			return jen.Id(id)
		}
		return valueType.Clone().Call(jen.Id(id))
	}
	rt := func(name string) *jen.Statement { return jen.Qual(runtimePath, name) }

	switch fd.Kind {
	case KindString, KindEnum, KindTime:
		s := e.local("s")
		chain = append(chain, clause{
			init:   jen.List(jen.Id(s), jen.Id(ok)).Op(":=").Id(raw).Assert(jen.String()),
			cond:   jen.Op("!").Id(ok),
			reason: rt("ReasonString"),
		})
		switch fd.Kind {
		case KindString:
			if fd.HasMin || fd.HasMax {
				n := e.local("n")
				chain = append(chain, clause{
					init:   jen.Id(n).Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id(s)),
					cond:   rangeCond(n, fd.HasMin, fd.HasMax, jen.Lit(int(fd.MinInt)), jen.Lit(int(fd.MaxInt))),
					reason: jen.Lit(lengthReason(fd)),
				})
			}
			switch fd.Format {
			case "email":
				chain = append(chain, clause{cond: jen.Op("!").Add(rt("IsEmail")).Call(jen.Id(s)), reason: rt("ReasonEmail")})
			case "uri":
				chain = append(chain, clause{cond: jen.Op("!").Add(rt("IsAbsoluteURI")).Call(jen.Id(s)), reason: rt("ReasonURI")})
			case "date":
				chain = append(chain, clause{
					init:   jen.List(jen.Id("_"), jen.Id(ok)).Op(":=").Add(rt("ParseDate")).Call(jen.Id(s)),
					cond:   jen.Op("!").Id(ok),
					reason: rt("ReasonDate"),
				})
			case "date-time":
				chain = append(chain, clause{
					init:   jen.List(jen.Id("_"), jen.Id(ok)).Op(":=").Add(rt("ParseDateTime")).Call(jen.Id(s)),
					cond:   jen.Op("!").Id(ok),
					reason: rt("ReasonDateTime"),
				})
			}
			set(convert(s))
		case KindEnum:
			chain = append(chain, clause{
				cond:   jen.Id(e.enumIndexName(fd)).Call(jen.Id(s)).Op("<").Lit(0),
				reason: jen.Lit("must be one of " + fd.Enum.list()),
			})
			if fd.Enum.Named == nil {
				set(jen.Id(s)) // an inline enum= on a plain string
			} else {
				set(valueType.Clone().Call(jen.Id(s)))
			}
		case KindTime:
			tm := e.local("tm")
			parse, reason := "ParseDateTime", "ReasonDateTime"
			if fd.Format == "date" {
				parse, reason = "ParseDate", "ReasonDate"
			}
			chain = append(chain, clause{
				init:   jen.List(jen.Id(tm), jen.Id(ok)).Op(":=").Add(rt(parse)).Call(jen.Id(s)),
				cond:   jen.Op("!").Id(ok),
				reason: rt(reason),
			})
			set(jen.Id(tm))
		}
	case KindBool:
		b := e.local("b")
		chain = append(chain, clause{
			init:   jen.List(jen.Id(b), jen.Id(ok)).Op(":=").Id(raw).Assert(jen.Bool()),
			cond:   jen.Op("!").Id(ok),
			reason: rt("ReasonBoolean"),
		})
		set(convert(b))
	case KindInteger:
		n, reason := e.local("n"), e.local("reason")
		chain = append(chain,
			clause{
				init:   jen.List(jen.Id(n), jen.Id(reason)).Op(":=").Add(rt("Integer")).Call(jen.Id(raw)),
				cond:   jen.Id(reason).Op("!=").Lit(""),
				reason: jen.Id(reason),
			},
			clause{
				cond:   rangeCond(n, true, true, jen.Lit(int(fd.MinInt)), jen.Lit(int(fd.MaxInt))),
				reason: jen.Lit(fmt.Sprintf("must be an integer from %d to %d", fd.MinInt, fd.MaxInt)),
			},
		)
		set(valueType.Clone().Call(jen.Id(n)))
	case KindNumber:
		n, reason := e.local("n"), e.local("reason")
		chain = append(chain, clause{
			init:   jen.List(jen.Id(n), jen.Id(reason)).Op(":=").Add(rt("Number")).Call(jen.Id(raw)),
			cond:   jen.Id(reason).Op("!=").Lit(""),
			reason: jen.Id(reason),
		})
		if fd.HasMin || fd.HasMax {
			chain = append(chain, clause{
				cond:   rangeCond(n, fd.HasMin, fd.HasMax, jen.Lit(fd.MinNum), jen.Lit(fd.MaxNum)),
				reason: jen.Lit(numberReason(fd)),
			})
		}
		if fd.Float32 && !(fd.HasMin && fd.HasMax) {
			// Declared bounds lie within the float32 range; one bound alone
			// leaves the other side open.
			chain = append(chain, clause{
				cond:   rangeCond(n, true, true, jen.Op("-").Qual("math", "MaxFloat32"), jen.Qual("math", "MaxFloat32")),
				reason: rt("ReasonFloat32"),
			})
		}
		set(convert(n))
	case KindMulti:
		return e.decodeMulti(fd, fail)
	}

	decode := chainCode(chain, fail, assign)
	return []jen.Code{
		jen.If(jen.List(jen.Id(raw), jen.Id(ok)).Op(":=").Id("content").Index(prop), jen.Id(ok)).
			Block(decode).
			Add(e.absent(fd, fail)),
	}
}

// chainCode builds if init; cond { fail } else if ... else { assign }.
func chainCode(chain []clause, fail func(jen.Code) jen.Code, assign []jen.Code) jen.Code {
	var stmt *jen.Statement
	for i, c := range chain {
		cond := []jen.Code{}
		if c.init != nil {
			cond = append(cond, c.init)
		}
		cond = append(cond, c.cond)
		if i == 0 {
			stmt = jen.If(cond...).Block(fail(c.reason))
		} else {
			stmt = stmt.Else().If(cond...).Block(fail(c.reason))
		}
	}
	return stmt.Else().Block(assign...)
}

// absent is the else branch taken when the property is missing.
func (e *formEmitter) absent(fd *Field, fail func(jen.Code) jen.Code) jen.Code {
	switch {
	case fd.Required:
		return jen.Else().Block(fail(jen.Qual(runtimePath, "ReasonRequired")))
	case fd.Default != nil:
		return jen.Else().Block(jen.Id(e.local("v")).Dot(fd.GoName).Op("=").Add(e.defaultValue(fd)))
	}
	return jen.Null()
}

func (e *formEmitter) defaultValue(fd *Field) jen.Code {
	d := fd.Default
	switch fd.Kind {
	case KindString, KindEnum:
		return jen.Lit(d.String) // untyped constants assign to named types too
	case KindBool:
		return jen.Lit(d.Bool)
	case KindInteger:
		return jen.Lit(int(d.Int))
	case KindNumber:
		return jen.Lit(d.Num)
	case KindMulti:
		items := make([]jen.Code, len(d.List))
		for i, s := range d.List {
			items[i] = jen.Lit(s)
		}
		return e.typeExpr(fd.Value).Values(items...)
	case KindTime:
		t := d.Time
		loc := jen.Qual("time", "UTC")
		if _, off := t.Zone(); off != 0 {
			loc = jen.Qual("time", "FixedZone").Call(jen.Lit(""), jen.Lit(off))
		}
		return jen.Qual("time", "Date").Call(jen.Lit(t.Year()), jen.Qual("time", "Month").Call(jen.Lit(int(t.Month()))), jen.Lit(t.Day()),
			jen.Lit(t.Hour()), jen.Lit(t.Minute()), jen.Lit(t.Second()), jen.Lit(t.Nanosecond()), loc)
	}
	return jen.Null()
}

// decodeMulti emits the decoding of a multi-select: one allocation for the
// result, a fixed-size seen array for duplicates.
func (e *formEmitter) decodeMulti(fd *Field, fail func(jen.Code) jen.Code) []jen.Code {
	raw, ok, v := e.local("raw"), e.local("ok"), e.local("v")
	list, reason, items, seen, it, s, i := e.local("list"), e.local("reason"), e.local("items"), e.local("seen"), e.local("it"), e.local("s"), e.local("i")
	elemType := fd.Value.Underlying().(*types.Slice).Elem() // Value may be a named slice type
	elem := e.typeExpr(elemType)
	lenCheck := jen.Null()
	if fd.HasMin || fd.HasMax {
		lenCheck = jen.Else().If(rangeCond("len("+list+")", fd.HasMin, fd.HasMax, jen.Lit(int(fd.MinInt)), jen.Lit(int(fd.MaxInt)))).Block(
			jen.Id(reason).Op("=").Lit(itemsReason(fd)),
		)
	}
	elemValue := jen.Id(s)
	if _, named := types.Unalias(elemType).(*types.Named); named {
		elemValue = elem.Clone().Call(jen.Id(s))
	}
	decode := []jen.Code{
		jen.List(jen.Id(list), jen.Id(ok)).Op(":=").Qual(runtimePath, "List").Call(jen.Id(raw)),
		jen.Var().Id(reason).String(),
		jen.Var().Id(items).Index().Add(elem),
		jen.If(jen.Op("!").Id(ok)).Block(jen.Id(reason).Op("=").Qual(runtimePath, "ReasonArray")).Add(lenCheck).Else().Block(
			jen.Id(items).Op("=").Make(jen.Index().Add(elem.Clone()), jen.Lit(0), jen.Len(jen.Id(list))),
			jen.Var().Id(seen).Index(jen.Lit(len(fd.Enum.Values))).Bool(),
			jen.For(jen.List(jen.Id("_"), jen.Id(it)).Op(":=").Range().Id(list)).Block(
				jen.List(jen.Id(s), jen.Id(ok)).Op(":=").Id(it).Assert(jen.String()),
				jen.If(jen.Op("!").Id(ok)).Block(
					jen.Id(reason).Op("=").Qual(runtimePath, "ReasonArray"),
					jen.Break(),
				),
				jen.Id(i).Op(":=").Id(e.enumIndexName(fd)).Call(jen.Id(s)),
				jen.If(jen.Id(i).Op("<").Lit(0)).Block(
					jen.Id(reason).Op("=").Lit("items must be among "+fd.Enum.list()),
					jen.Break(),
				),
				jen.If(jen.Id(seen).Index(jen.Id(i))).Block(
					jen.Id(reason).Op("=").Qual(runtimePath, "ReasonDuplicate"),
					jen.Break(),
				),
				jen.Id(seen).Index(jen.Id(i)).Op("=").True(),
				jen.Id(items).Op("=").Append(jen.Id(items), elemValue),
			),
		),
		jen.If(jen.Id(reason).Op("!=").Lit("")).Block(fail(jen.Id(reason))).Else().Block(
			jen.Id(v).Dot(fd.GoName).Op("=").Id(items),
		),
	}
	return []jen.Code{
		jen.If(jen.List(jen.Id(raw), jen.Id(ok)).Op(":=").Id("content").Index(jen.Lit(fd.Property)), jen.Id(ok)).
			Block(decode...).
			Add(e.absent(fd, fail)),
	}
}

// rangeCond is "n < lo || n > hi" for the bounds that exist.
func rangeCond(n string, hasMin, hasMax bool, lo, hi jen.Code) jen.Code {
	switch {
	case hasMin && hasMax:
		return jen.Id(n).Op("<").Add(lo).Op("||").Id(n).Op(">").Add(hi)
	case hasMin:
		return jen.Id(n).Op("<").Add(lo)
	}
	return jen.Id(n).Op(">").Add(hi)
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
