package forms

import (
	"encoding/json"
	"math"
	"net/mail"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// The independent validator: the form's own published schema, checked by
// jsonschema-go (which does not check formats), plus format checks written
// here with the standard library. It never calls the generated decoder.
func resolve(t testing.TB, raw json.RawMessage) *jsonschema.Resolved {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func validFormat(format string, v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s && a.Name == ""
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\r\n")
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil && len(s) == 10
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	}
	return true
}

// profileProperties renders a decoded Profile back into schema values, for
// the properties that the content had (or that have a default).
func profileProperties(p Profile, content map[string]any) map[string]any {
	out := map[string]any{}
	put := func(prop string, v any, hasDefault bool) {
		if _, ok := content[prop]; ok || hasDefault {
			out[prop] = v
		}
	}
	strs := func(n int, at func(int) string) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = at(i)
		}
		return l
	}
	put("name", p.Name, false)
	put("email", p.Email, false)
	if p.Site != nil {
		out["site"] = *p.Site
	}
	put("age", float64(p.Age), false)
	put("height", p.Height, false)
	if p.Ratio != nil {
		out["ratio"] = float64(*p.Ratio)
	}
	put("favorite", string(p.Favorite), true)
	put("palette", strs(len(p.Palette), func(i int) string { return string(p.Palette[i]) }), true)
	put("tags", strs(len(p.Tags), func(i int) string { return p.Tags[i] }), false)
	put("stages", strs(len(p.Stage), func(i int) string { return string(p.Stage[i]) }), false)
	put("birthday", p.Birthday.Format("2006-01-02"), false)
	if p.MeetAt != nil {
		out["meet_at"] = p.MeetAt.Format(time.RFC3339Nano)
	}
	put("size", p.Size, true)
	put("subscribe", p.Subscribe, false)
	return out
}

var profileFormats = map[string]string{"email": "email", "site": "uri", "birthday": "date", "meet_at": "date-time"}

// FuzzDecodeProfile decodes fuzzed JSON content with the generated decoder.
// Whatever it accepts must satisfy every constraint of the schema, checked
// independently, and must carry exactly the values that were sent.
func FuzzDecodeProfile(f *testing.F) {
	for _, s := range []string{
		`{"name":"Ada","birthday":"1815-12-10","palette":["red"]}`,
		`{"name":"Ada","email":"ada@example.com","site":"https://example.com","age":36,"height":1.7,"ratio":0.5,"favorite":"blue","palette":["red","green"],"tags":["go"],"stages":["dev","prod"],"birthday":"2000-02-29","meet_at":"2026-11-29T10:00:00+01:00","size":"l","subscribe":true}`,
		`{"name":"","age":12,"height":3,"palette":[],"birthday":"2026-02-30"}`,
		`{"name":"x","age":255.5,"ratio":1e39,"meet_at":"2026-11-29T10:00:00"}`,
		`{"name":null}`, `[]`, `{}`,
	} {
		f.Add([]byte(s))
	}
	schema := resolve(f, Profile{}.ElicitSchema())
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		var p Profile
		if err := p.DecodeElicit(content); err != nil {
			if !reflect.DeepEqual(p, Profile{}) {
				t.Fatalf("a failed decode changed the struct: %+v", p)
			}
			return
		}
		props := profileProperties(p, content)
		if err := schema.Validate(props); err != nil {
			t.Fatalf("accepted %s, which the schema rejects: %v", data, err)
		}
		for prop, format := range profileFormats {
			if v, ok := props[prop]; ok && !validFormat(format, v) {
				t.Fatalf("accepted %s: %s is not a valid %s: %v", data, prop, format, v)
			}
		}
		for prop, sent := range content {
			got, known := props[prop]
			if !known {
				continue
			}
			switch prop {
			case "meet_at", "birthday":
				a, _ := time.Parse(time.RFC3339Nano, sent.(string))
				if prop == "birthday" {
					a, _ = time.Parse("2006-01-02", sent.(string))
				}
				b, _ := time.Parse(time.RFC3339Nano, got.(string))
				if prop == "birthday" {
					b, _ = time.Parse("2006-01-02", got.(string))
				}
				if !a.Equal(b) {
					t.Fatalf("%s: sent %v, decoded %v", prop, sent, got)
				}
			case "ratio":
				if math.Abs(got.(float64)-sent.(float64)) > math.Abs(sent.(float64))*1e-6 {
					t.Fatalf("ratio: sent %v, decoded %v", sent, got)
				}
			default:
				if !reflect.DeepEqual(got, sent) {
					t.Fatalf("%s: sent %#v, decoded %#v", prop, sent, got)
				}
			}
		}
	})
}
