package gen

import (
	"cmp"
	"go/token"
	"go/types"
	"strings"
	"time"
)

// model is what Check hands to Emit: every package with forms, with every
// decision already made. It is plain data.
type model struct {
	Packages []*pkgModel
}

// pkgModel is one loaded Go package.
type pkgModel struct {
	Path  string // import path
	Name  string
	Dir   string
	Files []*fileModel // source files with forms, sorted by path
	// Generated lists the files of ours (by name and header) already in the
	// package, so Write can remove those no source produces any more.
	Generated []string
	types     *types.Package
}

// fileModel is one source file and the output it produces.
type fileModel struct {
	Source string // absolute path of the .go file the forms are declared in
	Output string // absolute path of the generated file
	// Build is the source's build constraint, which the generated file
	// carries as its //go:build line (constraint.go); "" for none.
	Build string
	Forms []*formModel
	Tools []*toolModel
	// Imports maps every package the generated file may refer to, to the
	// name it imports it under (aliased when a package-level identifier
	// takes the usual name).
	Imports map[string]string
}

// formModel is one struct type turned into an elicitation form.
type formModel struct {
	Name   string
	Fields []*fieldModel // the properties, in declaration order
	// Shape lists every field of the struct (properties or not), for the
	// compile-time stale check. Nil when a field type cannot be spelled.
	Shape []shapeField
	// Schema is the precomputed requestedSchema JSON.
	Schema []byte
	// SchemaVar names the package-level variable holding Schema;
	// SchemaVar+"Value" holds it as an any.
	SchemaVar string
	// Indexes lists the fields whose enum's index function this form's
	// file declares with it (each enum's once, with its first form).
	Indexes []*fieldModel
}

// shapeField is one field of a form struct as the stale check spells it.
type shapeField struct {
	Name     string
	Type     types.Type
	Embedded bool // spelled as its type alone
}

// propKind is the JSON Schema shape of a property.
type propKind int

const (
	kindString  propKind = iota // type: string
	kindBool                    // type: boolean
	kindInteger                 // type: integer
	kindNumber                  // type: number
	kindEnum                    // single-select: type string + enum or oneOf
	kindMulti                   // multi-select: type array of enum items
	kindTime                    // time.Time as type string, format date or date-time
)

// fieldModel is one property of a form.
type fieldModel struct {
	GoName      string
	Property    string
	Kind        propKind
	Type        types.Type // the field's Go type
	Value       types.Type // the value type: Type without the pointer
	Pointer     bool
	Required    bool
	Title       string
	Description string
	Format      string // email, uri, date, date-time

	// Bounds. Integers always carry both (declared ∩ the type's range ∩ the
	// safe-integer range). Others only when declared.
	HasMin, HasMax bool
	MinInt, MaxInt int64   // integer values; string lengths; item counts
	MinNum, MaxNum float64 // number values
	Float32        bool    // value type is float32

	Enum *enumModel // KindEnum, KindMulti
	// EnumNames sends a titled single-select's titles as the deprecated
	// enumNames beside enum (LegacyTitledEnumSchema) instead of oneOf.
	EnumNames bool
	Default   *propDefault
}

// enumModel is the value set of a single- or multi-select property.
type enumModel struct {
	Named  types.Type // the named string type, nil for an inline enum= list
	Values []enumValue
	Titled bool
	// Index names the generated function that gives a value's position.
	Index string
}

// enumValue is one allowed value.
type enumValue struct {
	Value string
	Title string
}

// propDefault is a property default, typed by its field.
type propDefault struct {
	Raw    string
	String string
	Bool   bool
	Int    int64
	Num    float64
	List   []string
	Time   time.Time
}

// toolModel is a tool declaration (//elicit:tool NAME): its arguments and steps;
// or a prompt (//elicit:prompt NAME) or resource (//elicit:resource URI)
// declaration, which has the same parts (see Kind).
type toolModel struct {
	// Kind is what the declaration declares. For a prompt, MCPName is its
	// name and Args its arguments (nil: none); for a resource, MCPName is
	// its URI or URI template and Args is nil.
	Kind declKind
	// PromptArgs are a prompt's arguments: Args' fields, then the
	// prefilled properties (optional).
	PromptArgs []promptArg
	// MIMEType is a resource's MIME type, or ""; Template is true when its
	// URI is a URI template.
	MIMEType string
	Template bool

	Name                                         string // Go type name of the declaration
	MCPName                                      string // the tool's name on the wire
	Description                                  string
	Args                                         types.Type // the argument struct
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// Task is "optional" or "required" for a tool that runs as a task of
	// the tasks extension (//elicit:task), else "". A task tool's handler
	// has Run instead of Complete, and a task type (TaskType) with a typed
	// asker per group of During steps.
	Task string
	// Restartable: the task's Run may run again from the start on another
	// instance, replaying the recorded answers (//elicit:task ...
	// restartable).
	Restartable bool
	Steps       []*stepModel
	// AnswersFunc names the generated function that types the machine's
	// answers.
	AnswersFunc string
	// Methods is the handler interface's method set, in order: the
	// generated interface, its wiring in Register and the stub are all
	// printed from it.
	Methods []handlerMethod
	// PrefillSchema is the JSON object of the properties the steps
	// prefill, keyed by property name, and of the confirmation token of a
	// preview step; nil when there is neither.
	PrefillSchema []byte
}

// stepModel is one step of a tool.
type stepModel struct {
	GoName         string     // the declaration's field: names the step
	Key            string     // input request key prefix
	Form           *formModel // nil for a URL step
	URL            bool       // a URL step (elicitrt.URLStep)
	Message        string     // static message; empty when MessageHandler
	MessageHandler bool
	AskHandler     bool
	Prefill        bool
	Once           bool   // completing the flow is single use (final step)
	Together       bool   // asked in the same round as the step before it
	During         bool   // asked by a task tool's Run while the task runs
	Fallback       string // error, defaults, arguments, handler, preview
	Missing        string // text of the arguments fallback
	// Accept is the property a confirmation token sets to true, for a
	// step whose fallback is preview (a once step whose form is one
	// required boolean).
	Accept string
	// Confirm is the one required boolean property of a confirm step (or
	// of a preview step, which is one) that only true answers: false is
	// the step's decline. Empty for other steps.
	Confirm string
	// PrefillProps lists the form's properties when Prefill; PrefillNeeds
	// those the arguments must all supply (the required ones, or else
	// those without a default).
	PrefillProps, PrefillNeeds []string
	// Digest is the digest of what the person is shown and what the
	// answer means (stepDigest), set with the generated names.
	Digest string
	// Where is the step's field in its source file, where vet --hosts
	// reports what a host cannot show of it.
	Where token.Position
}

// methodKind says what a handler method is for, and so its signature.
type methodKind int

const (
	methodComplete    methodKind = iota // (ctx, req, args, answers) (*mcp.CallToolResult, error)
	methodDeclined                      // (ctx, req, args, answers, step) (*mcp.CallToolResult, error)
	methodCancelled                     // (ctx, req, args, answers, step) (*mcp.CallToolResult, error)
	methodUnavailable                   // (ctx, req, args, answers, step) (*mcp.CallToolResult, error)
	methodMessage                       // (ctx, req, args, answers) string: message=handler
	methodAsk                           // (ctx, req, args, answers) bool: ask=handler
	methodURL                           // (ctx, req, args, answers, token string) string: a URL step
	methodPreview                       // (ctx, req, args, answers) string: fallback=preview
	methodRun                           // (ctx, req, task, args, answers) (*mcp.CallToolResult, error): a task tool's work
)

// TaskType names the task type generated for a task tool.
func (t *toolModel) TaskType() string { return t.Name + "Task" }

// asker is one typed asker of a task tool's task type: a During step and
// the During steps joined to it with together, asked in one Task.Ask.
type asker struct {
	Name  string // Ask + the first step's Go name
	Steps []int  // the steps' indexes, in order
}

// Askers groups t's During steps into the askers of its task type.
func (t *toolModel) Askers() []asker {
	var out []asker
	for i, s := range t.Steps {
		if !s.During {
			continue
		}
		if s.Together && len(out) > 0 && out[len(out)-1].Steps[len(out[len(out)-1].Steps)-1] == i-1 {
			out[len(out)-1].Steps = append(out[len(out)-1].Steps, i)
			continue
		}
		out = append(out, asker{Name: "Ask" + s.GoName, Steps: []int{i}})
	}
	return out
}

// handlerMethod is one method of a tool's handler interface.
type handlerMethod struct {
	Name string
	Kind methodKind
	Step *stepModel // the step of a per-step method (Message, Ask, URL)
}

// generatedSuffix names every file elicitgen writes: x.go → x_elicit.go.
const generatedSuffix = "_elicit.go"

// header is the first line of every generated file.
const header = "Code generated by elicitgen. DO NOT EDIT."

// Import paths of generated code.
const (
	runtimePath    = "github.com/elicitgen/elicitgen/runtime"
	implPath       = "github.com/elicitgen/elicitgen/runtime/elicitimpl"
	mcpPath        = "github.com/modelcontextprotocol/go-sdk/mcp"
	jsonschemaPath = "github.com/google/jsonschema-go/jsonschema"
	// runtimeName is the one fixed name generated code gives the runtime.
	runtimeName = "elicitrt"
)

// declKind is what a declaration declares.
type declKind int

func (k declKind) String() string { return [...]string{"tool", "prompt", "resource"}[k] }

// promptArg is one argument of a prompt (the spec's PromptArgument): its
// value is a string.
type promptArg struct {
	Name, Title, Description string
	Required                 bool
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
// shown is prefix and the enum's titles, as the form shows its values,
// when it has titles; "" when it has none.
func (e *enumModel) shown(prefix string) string {
	if !e.Titled {
		return ""
	}
	titles := make([]string, len(e.Values))
	for i, v := range e.Values {
		titles[i] = cmp.Or(v.Title, v.Value)
	}
	return prefix + strings.Join(titles, ", ")
}

func (e *enumModel) list() string {
	vals := make([]string, len(e.Values))
	for i, v := range e.Values {
		vals[i] = v.Value
	}
	return strings.Join(vals, ", ")
}

const (
	declTool     declKind = iota // //elicit:tool NAME: tools/call
	declPrompt                   // //elicit:prompt NAME: prompts/get
	declResource                 // //elicit:resource URI [MIME-TYPE]: resources/read
)
