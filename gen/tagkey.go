package gen

import (
	"strings"

	"github.com/fatih/structtag"
)

// parseStructTagKey returns the value of key in a raw struct tag; bad is
// true when the tag does not parse.
func parseStructTagKey(raw, key string) (value string, bad bool) {
	tags, err := structtag.Parse(raw)
	if err != nil {
		return "", true
	}
	if tags == nil {
		return "", false
	}
	tag, err := tags.Get(key)
	if err != nil || tag == nil {
		return "", false
	}
	// Not tag.Value(): it drops a trailing empty option ("name,").
	return strings.Join(append([]string{tag.Name}, tag.Options...), ","), false
}
