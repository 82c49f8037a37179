package machine

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// argsDecoder decodes and validates the arguments of a tool whose argument
// struct is flat (every field a string, boolean or number, or a pointer to
// one), as mcp.AddTool does for any struct, with the same outcome:
//
//  1. the arguments are decoded into a map (after the SDK's nesting-depth
//     check), and a JSON text that is not an object fails with the SDK's
//     message;
//  2. the schema's defaults are applied to the map, if it has any;
//  3. the map is validated against the input schema, resolved once at
//     registration with the options the SDK uses (ValidateDefaults), by
//     the same jsonschema-go; a failure is the SDK's tool error,
//     `validating "arguments": ...`;
//  4. the typed arguments are decoded straight from the request's bytes,
//     where the SDK re-marshals the map and decodes that. The two agree
//     because every key that reaches a field was validated, names match
//     exactly (a key that matches a field only when case is ignored, which
//     encoding/json would take and the SDK's decoder would not, sends the
//     call to step 5 without that key), and fields are scalars. Where they
//     could differ, the slower step 5 runs instead;
//  5. otherwise (a default fills a field of the struct, a key differs from
//     a field only in case, or the direct decode fails, as for 1.0 into an
//     int, which the schema accepts as an integer), the validated map is
//     marshalled and decoded, as the SDK does.
//
// What it saves per call: the SDK's decode of the arguments into a map
// through a decoder that allocates a 32 KiB buffer, the re-marshal of the
// map, and a second such decode (docs/results/performance.md measures it).
type argsDecoder[A any] struct {
	resolved *jsonschema.Resolved
	// hasDefaults: the schema may hold a default, so defaults are applied
	// before validation.
	hasDefaults bool
	// fieldDefaults: a property with a default is a field of A, so its
	// decode goes through the defaulted map (step 5).
	fieldDefaults bool
	// fields are the JSON names of A's fields.
	fields map[string]bool
	// words, when set, word a schema failure (argwords.go); nil keeps the
	// SDK's text.
	words *argWords
}

// sdkMaxDepth is the nesting depth the SDK's JSON decoder accepts.
const sdkMaxDepth = 1000

// newArgsDecoder returns the decoder of A's arguments against schema, or
// nil when A is not a flat struct or the schema cannot be resolved here:
// the caller then keeps the SDK's path (mcp.AddTool), which reports any
// problem itself.
func newArgsDecoder[A any](schema any) *argsDecoder[A] {
	fields := flatFields(reflect.TypeFor[A]())
	if fields == nil {
		return nil
	}
	var raw []byte
	switch s := schema.(type) {
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	default:
		return nil
	}
	var root jsonschema.Schema
	if err := json.Unmarshal(raw, &root); err != nil || root.Type != "object" {
		return nil
	}
	resolved, err := root.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil
	}
	// Defaults anywhere in the schema (the SDK applies nested ones too) are
	// applied; conservatively, whenever the text has the keyword.
	d := &argsDecoder[A]{resolved: resolved, fields: fields, hasDefaults: bytes.Contains(raw, []byte(`"default"`))}
	for name, prop := range root.Properties {
		if prop != nil && prop.Default != nil && fields[name] {
			d.fieldDefaults = true
		}
	}
	return d
}

// flatFields returns the JSON names of t's fields when t is a struct whose
// exported fields are all scalars (no embedded fields, no custom
// unmarshalling), and nil otherwise.
func flatFields(t reflect.Type) map[string]bool {
	if t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if reflect.PointerTo(ft).Implements(reflect.TypeFor[json.Unmarshaler]()) ||
			reflect.PointerTo(ft).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			return nil
		}
		switch ft.Kind() {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return nil
		}
		for other := range fields {
			if strings.EqualFold(other, name) {
				return nil // two fields differing in case: leave it to the SDK
			}
		}
		fields[name] = true
	}
	return fields
}

// decode returns the typed arguments of req, or the tool error result the
// SDK would have answered instead.
func (d *argsDecoder[A]) decode(data json.RawMessage) (A, *mcp.CallToolResult) {
	var args A
	m := map[string]any{}
	if len(data) > 0 {
		if err := unmarshalArgumentsMap(data, &m); err != nil {
			return args, argsError(fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err))
		}
	}
	if m == nil {
		// "arguments": null. The SDK's path hands a nil map to
		// ApplyDefaults, which panics, in a goroutine of its own, when the
		// schema has a default: the process dies. Here null is no
		// arguments, as the SDK answers it when the schema has no default.
		m = map[string]any{}
	}
	var instance any = m
	if d.hasDefaults {
		if err := d.resolved.ApplyDefaults(&instance); err != nil {
			return args, argsError(fmt.Errorf("validating \"arguments\": applying schema defaults:\n%w", err))
		}
	}
	if err := d.resolved.Validate(&instance); err != nil {
		if d.words != nil {
			return args, argsError(errors.New(d.words.explain(m, err)))
		}
		return args, argsError(fmt.Errorf("validating \"arguments\": %v", err))
	}
	direct := !d.fieldDefaults && len(data) > 0
	for k := range m {
		if !d.fields[k] && d.foldsToField(k) {
			// The SDK's decoder matches names exactly; encoding/json would
			// take this key for a field.
			delete(m, k)
			direct = false
		}
	}
	if direct && json.Unmarshal(data, &args) == nil {
		return args, nil
	}
	args = *new(A)
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &args)
	}
	if err != nil {
		return args, argsError(err)
	}
	return args, nil
}

func (d *argsDecoder[A]) foldsToField(k string) bool {
	for f := range d.fields {
		if strings.EqualFold(f, k) {
			return true
		}
	}
	return false
}

// unmarshalArgumentsMap decodes data into m with the SDK's limits and, for
// a JSON value that is not an object, the SDK's error text.
func unmarshalArgumentsMap(data []byte, m *map[string]any) error {
	if err := checkDepth(data, sdkMaxDepth); err != nil {
		return err
	}
	if err := json.Unmarshal(data, m); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "" {
			return fmt.Errorf("json: cannot unmarshal %q into Go value of type map[string]interface {}", strings.TrimSpace(string(data)))
		}
		return err
	}
	return nil
}

// checkDepth reports an error if the nesting of JSON objects and arrays in
// data exceeds max, as the SDK's decoder does.
func checkDepth(data []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return fmt.Errorf("json: exceeded maximum nesting depth of %d", max)
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

func argsError(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// addRawTool registers tool with a raw handler that decodes its arguments
// with d and calls h, handling h's results and errors as mcp.AddTool does
// (a *jsonrpc.Error is a JSON-RPC error, any other error a tool error).
func addRawTool[A any](server *mcp.Server, tool *mcp.Tool, d *argsDecoder[A], h func(context.Context, *mcp.CallToolRequest, A) (*mcp.CallToolResult, error)) {
	server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var data json.RawMessage
		if req.Params.Arguments != nil {
			data = req.Params.Arguments
		}
		args, bad := d.decode(data)
		if bad != nil {
			return bad, nil
		}
		res, err := h(ctx, req, args)
		if err != nil {
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			var errRes mcp.CallToolResult
			errRes.SetError(err)
			return &errRes, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		return res, nil
	})
}

// sdkArgumentWords is the receiving middleware AddTool installs for a tool
// it leaves to mcp.AddTool: the SDK's tool error for arguments its input
// schema refuses is worded by words instead, as on the raw path.
func sdkArgumentWords(name string, words *argWords) mcp.Middleware {
	const prefix = `validating "arguments": `
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			tr, isTool := res.(*mcp.CallToolResult)
			if err != nil || !ok || p == nil || p.Name != name || !isTool || !tr.IsError || len(tr.Content) != 1 {
				return res, err
			}
			text, _ := tr.Content[0].(*mcp.TextContent)
			m := map[string]any{}
			if text == nil || !strings.HasPrefix(text.Text, prefix+"validating root") ||
				(len(p.Arguments) > 0 && unmarshalArgumentsMap(p.Arguments, &m) != nil) || m == nil {
				return res, err
			}
			return argsError(errors.New(words.explain(m, errors.New(strings.TrimPrefix(text.Text, prefix))))), nil
		}
	}
}

// nullArgumentsAsNone is the receiving middleware AddTool installs for a
// tool it leaves to mcp.AddTool: a tools/call of that tool whose arguments
// are JSON null reaches the SDK without arguments. mcp.AddTool's path would
// hand ApplyDefaults a nil map, which panics in the SDK's handler goroutine
// when the schema has a default, and the process dies; without arguments,
// the SDK validates an empty object, as the raw path does for null.
func nullArgumentsAsNone(name string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && p.Name == name &&
					string(bytes.TrimSpace(p.Arguments)) == "null" {
					p.Arguments = nil
				}
			}
			return next(ctx, method, req)
		}
	}
}
