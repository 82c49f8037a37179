package gen

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// ReferenceVersion is the version of the reference's JSON schema
// (docs/reference/reference-docs.md): it changes only with a change a reader of
// version 1 would misread.
const ReferenceVersion = 1

// ContractName is the file the contract of a package is written to,
// beside its generated code: its reference as JSON.
const ContractName = "elicit.contract.json"

// A Reference is what every tool, prompt and resource of some packages
// asks, built from Check's model: elicitgen docs renders it as md, html or
// json, and the json of one package is its contract. Everything is in a
// stable order: packages by import path, declarations by kind then name;
// steps, fields and enum values in the order the person meets them.
type Reference struct {
	Generated string       `json:"generated"`
	Version   int          `json:"version"`
	Packages  []RefPackage `json:"packages"`
}

// RefPackage is one Go package.
type RefPackage struct {
	Path         string    `json:"path"`
	Declarations []RefDecl `json:"declarations"`
}

// RefDecl is one tool, prompt or resource.
type RefDecl struct {
	Kind        string    `json:"kind"` // tool, prompt or resource
	Name        string    `json:"name"` // its MCP name (a resource: its URI)
	GoType      string    `json:"goType"`
	Description string    `json:"description,omitempty"`
	Annotations []string  `json:"annotations,omitempty"`
	MIMEType    string    `json:"mimeType,omitempty"`
	Task        string    `json:"task,omitempty"` // optional or required
	Restartable bool      `json:"restartable,omitempty"`
	Arguments   []RefArg  `json:"arguments"`
	Steps       []RefStep `json:"steps"`
}

// RefArg is one argument the model passes.
type RefArg struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
	// From names the step a prefilled argument answers, or "preview" for
	// the confirmation token.
	From string `json:"from,omitempty"`
}

// RefStep is one question, in order.
type RefStep struct {
	Key   string `json:"key"`
	Field string `json:"field"` // the declaration's Go field
	Mode  string `json:"mode"`  // form or url
	// Message is the static message; "" with MessageByHandler.
	Message          string `json:"message,omitempty"`
	MessageByHandler bool   `json:"messageByHandler,omitempty"`
	// Asked is when: always, ask=handler, prefill or during.
	Asked    string `json:"asked"`
	Together bool   `json:"together,omitempty"`
	Once     bool   `json:"once,omitempty"`
	Confirm  string `json:"confirm,omitempty"` // the property only true passes
	Fallback string `json:"fallback"`
	// WithoutPerson is what the model gets when no person can be asked.
	WithoutPerson string     `json:"withoutPerson"`
	Digest        string     `json:"digest"`
	Fields        []RefField `json:"fields,omitempty"`
	Hosts         []RefHosts `json:"hosts"`
}

// RefField is one property of a form.
type RefField struct {
	Property    string    `json:"property"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Type        string    `json:"type"` // string boolean integer number enum multi-select
	Format      string    `json:"format,omitempty"`
	Required    bool      `json:"required,omitempty"`
	Default     *string   `json:"default,omitempty"`
	Minimum     *float64  `json:"minimum,omitempty"`
	Maximum     *float64  `json:"maximum,omitempty"`
	MinLength   *int64    `json:"minLength,omitempty"`
	MaxLength   *int64    `json:"maxLength,omitempty"`
	MinItems    *int64    `json:"minItems,omitempty"`
	MaxItems    *int64    `json:"maxItems,omitempty"`
	Enum        []RefEnum `json:"enum,omitempty"`
}

// RefEnum is one allowed value; Title is "" when the enum has none.
type RefEnum struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// RefHosts is what the hosts named show for a step (hosts that show the
// same are grouped, in the order of the host matrix).
type RefHosts struct {
	Shows string   `json:"shows"`
	Hosts []string `json:"hosts"`
}

// buildReference is the reference of m's packages.
func buildReference(m *model) *Reference {
	ref := &Reference{Generated: header, Version: ReferenceVersion, Packages: []RefPackage{}}
	for _, p := range m.Packages {
		if rp := refPackage(p); len(rp.Declarations) > 0 {
			ref.Packages = append(ref.Packages, rp)
		}
	}
	slices.SortFunc(ref.Packages, func(a, b RefPackage) int { return strings.Compare(a.Path, b.Path) })
	return ref
}

func refPackage(p *pkgModel) RefPackage {
	rp := RefPackage{Path: p.Path, Declarations: []RefDecl{}}
	seen := map[string]bool{}
	for _, f := range p.Files {
		for _, t := range f.Tools {
			id := t.Kind.String() + " " + t.MCPName
			if seen[id] { // the same declaration under several build constraints
				continue
			}
			seen[id] = true
			rp.Declarations = append(rp.Declarations, refDecl(t))
		}
	}
	slices.SortFunc(rp.Declarations, func(a, b RefDecl) int {
		return cmp.Or(cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), strings.Compare(a.Name, b.Name))
	})
	return rp
}

func kindOrder(kind string) int { return slices.Index([]string{"tool", "prompt", "resource"}, kind) }

func refDecl(t *toolModel) RefDecl {
	d := RefDecl{Kind: t.Kind.String(), Name: t.MCPName, GoType: t.Name, Description: t.Description,
		MIMEType: t.MIMEType, Task: t.Task, Restartable: t.Restartable, Arguments: refArgs(t), Steps: []RefStep{}}
	for _, a := range []struct {
		on   bool
		name string
	}{{t.ReadOnly, "readonly"}, {t.Destructive, "destructive"}, {t.Idempotent, "idempotent"}, {t.OpenWorld, "openworld"}} {
		if a.on {
			d.Annotations = append(d.Annotations, a.name)
		}
	}
	for _, s := range t.Steps {
		d.Steps = append(d.Steps, refStep(t, s))
	}
	return d
}

// refArgs are t's arguments: the Args struct's, then the prefilled
// properties and the confirmation token (optional arguments).
func refArgs(t *toolModel) []RefArg {
	args := []RefArg{}
	if t.Kind == declPrompt {
		for _, a := range t.PromptArgs {
			args = append(args, RefArg{Name: a.Name, Type: "string", Required: a.Required, Description: cmp.Or(a.Description, a.Title)})
		}
		return args
	}
	if t.Args != nil {
		if st, ok := types.Unalias(t.Args).Underlying().(*types.Struct); ok {
			args = structArgs(st, 0)
		}
	}
	for _, s := range t.Steps {
		if !s.Prefill || s.Form == nil {
			continue
		}
		for _, f := range s.Form.Fields {
			if slices.Contains(s.PrefillProps, f.Property) {
				args = append(args, RefArg{Name: f.Property, Type: fieldType(f), Description: cmp.Or(f.Description, f.Title), From: s.Key})
			}
		}
	}
	if slices.ContainsFunc(t.Steps, func(s *stepModel) bool { return s.Accept != "" }) {
		args = append(args, RefArg{Name: "confirmation_token", Type: "string", Description: "the token a preview returned", From: "preview"})
	}
	return args
}

// structArgs are the JSON properties of an argument struct, as
// encoding/json and jsonschema.For name them.
func structArgs(st *types.Struct, depth int) []RefArg {
	var args []RefArg
	eachArgument(st, depth, func(f *types.Var, name string, tag reflect.StructTag) {
		j := tag.Get("json")
		optional := strings.Contains(j, ",omitempty") || strings.Contains(j, ",omitzero")
		args = append(args, RefArg{Name: name, Type: goJSONType(f.Type()), Required: !optional, Description: tag.Get("jsonschema")})
	})
	return args
}

// goJSONType is the JSON Schema type of an argument's Go type.
func goJSONType(t types.Type) string {
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Pointer:
		return goJSONType(u.Elem())
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "boolean"
		case u.Info()&types.IsInteger != 0:
			return "integer"
		case u.Info()&types.IsFloat != 0:
			return "number"
		case u.Info()&types.IsString != 0:
			return "string"
		}
	case *types.Slice, *types.Array:
		return "array"
	case *types.Map, *types.Struct:
		if isTime(t) {
			return "string"
		}
		return "object"
	}
	return "any"
}

// MarshalReference is the reference as JSON: indented, keys in struct
// order, no HTML escaping, one trailing newline; the same bytes for the
// same model.
func (ref *Reference) marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ref); err != nil {
		panic(fmt.Sprintf("elicitgen: the reference does not encode: %v", err)) // plain data: cannot happen
	}
	return buf.Bytes()
}

// contractFiles adds to out the contract of each package of m with
// declarations, beside its generated code, and lists as stale a contract
// whose package declares nothing any more.
func contractFiles(m *model, out *output) {
	for _, p := range m.Packages {
		if p.Dir == "" {
			continue
		}
		path := filepath.Join(p.Dir, ContractName)
		rp := refPackage(p)
		if len(rp.Declarations) == 0 {
			if fileIsOurs(path) {
				out.Stale = append(out.Stale, path)
			}
			continue
		}
		ref := &Reference{Generated: header, Version: ReferenceVersion, Packages: []RefPackage{rp}}
		out.Files[path] = ref.marshal()
	}
}

// Docs loads and checks cfg's packages and returns their reference, or
// the diagnostics.
func Docs(cfg Config) (Diagnostics, *Reference, error) {
	diags, m, err := loadModel(cfg)
	if err != nil || len(diags) > 0 {
		return diags, nil, err
	}
	return nil, buildReference(m), nil
}

// Render renders the reference as format: "md", "html" or "json".
func (ref *Reference) Render(format string) ([]byte, error) {
	switch format {
	case "json":
		return ref.marshal(), nil
	case "md":
		return renderMarkdown(ref), nil
	case "html":
		return renderHTML(ref), nil
	}
	return nil, fmt.Errorf("unknown format %q: md, html or json", format)
}

// ParseReference reads a reference or contract as Render writes its
// json, refusing another schema version.
func ParseReference(b []byte) (*Reference, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("not an elicitgen contract: %v", err)
	}
	if probe.Version == nil || *probe.Version != ReferenceVersion {
		v := "none"
		if probe.Version != nil {
			v = fmt.Sprint(*probe.Version)
		}
		return nil, fmt.Errorf("not an elicitgen contract of version %d (its version is %s)", ReferenceVersion, v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ref Reference
	if err := dec.Decode(&ref); err != nil {
		return nil, fmt.Errorf("not an elicitgen contract of version %d: %v", ReferenceVersion, err)
	}
	return &ref, nil
}
