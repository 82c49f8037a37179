package elicittest

import (
	"bytes"
	"encoding/json"
	"errors"
)

// orderedProperties are a schema's properties in the order the schema
// gives them (a Go map would lose it).
type orderedProperties []Property

// UnmarshalJSON reads the properties object, keeping its order.
func (ps *orderedProperties) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("properties: not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var p struct {
			Type               json.RawMessage
			Title, Description string
			Default            any
		}
		if err := dec.Decode(&p); err != nil {
			return err
		}
		name, _ := tok.(string)
		var typ string
		json.Unmarshal(p.Type, &typ) // a list of types stays ""
		*ps = append(*ps, Property{Name: name, Type: typ, Title: p.Title, Description: p.Description, Default: p.Default})
	}
	return nil
}
