package machine

import (
	"encoding/json"
	"fmt"
)

// InputSchema returns the tool's input schema: base (any JSON schema object,
// typically jsonschema.For of the argument struct) with the prefillable form
// properties added as optional properties.
func InputSchema(base any, prefill json.RawMessage) (json.RawMessage, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	if len(prefill) == 0 {
		return b, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil, err
	}
	var extra map[string]any
	if err := json.Unmarshal(prefill, &extra); err != nil {
		return nil, err
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	for k, v := range extra {
		if _, dup := props[k]; dup {
			return nil, fmt.Errorf("argument %q is both declared and prefilled from a form", k)
		}
		props[k] = v
	}
	schema["properties"] = props
	if schema["type"] == nil {
		schema["type"] = "object"
	}
	return json.Marshal(schema)
}

// Bool returns a pointer to b, for the optional hints of tool annotations.
func Bool(b bool) *bool { return &b }
