package gen

import (
	"go/ast"
	"testing"
)

// TestNameTitle: a property's title from its Go field name (issue 29).
func TestNameTitle(t *testing.T) {
	for name, want := range map[string]string{
		"ReleaseNotes": "Release notes",
		"UserID":       "User ID",
		"URLPath":      "URL path",
		"ID":           "ID",
		"Notify":       "Notify",
		"Line2Name":    "Line2 name",
		"HTTPServer2":  "HTTP server2",
		"X":            "X",
	} {
		if got := nameTitle(name); got != want {
			t.Errorf("nameTitle(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestDocText: a description without the Go name its doc comment starts
// with (issue 29).
func TestDocText(t *testing.T) {
	for _, tt := range []struct{ doc, name, want string }{
		{"// RefundOrder refunds an order.", "RefundOrder", "Refunds an order."},
		{"// Name is the full name.", "Name", "The full name."},
		{"// Toppings are what to put on.", "Toppings", "What to put on."},
		{"// Where we write to.", "Email", "Where we write to."},
		{"// Names, all of them.", "Names", "Names, all of them."},
		{"// RefundOrderNow refunds.", "RefundOrder", "RefundOrderNow refunds."},
		{"// Deploy", "Deploy", "Deploy"},
		{"// Include the tickets' attachments in the export.", "Include", "Include the tickets' attachments in the export."},
		{"// Include sets whether attachments go too.", "Include", "Sets whether attachments go too."},
		{"// Size reports the cup size.", "Size", "Reports the cup size."},
		{"// Size has three values.", "Size", "Has three values."},
		{"// Size its own line.", "Size", "Size its own line."},
		{"// Size across the board.", "Size", "Size across the board."},
		{"// Size Sets the cup.", "Size", "Size Sets the cup."},
		{"// Job panics: its task fails.", "Job", "Panics: its task fails."},
	} {
		cg := &ast.CommentGroup{List: []*ast.Comment{{Text: tt.doc}}}
		if got := docText(cg, tt.name); got != tt.want {
			t.Errorf("docText(%q, %s) = %q, want %q", tt.doc, tt.name, got, tt.want)
		}
	}
}

// TestDirectiveFix: each comment read as the directive it is or almost
// is, with the problem to report (issue 29).
func TestDirectiveFix(t *testing.T) {
	for _, tt := range []struct{ text, fixed, msg string }{
		{"//elicit:tool refund", "//elicit:tool refund", ""},
		{"// elicit:tool refund", "//elicit:tool refund", `"// elicit:tool refund" is no directive: write //elicit:tool refund (a directive has no space after //, as //go:generate has none)`},
		{"//elicit: tool b", "//elicit:tool b", `"//elicit: tool b" is no directive: write //elicit:tool b (a directive has no space after the colon, as //go:generate has none)`},
		{"//  elicit: tol b", "//elicit:tool b", `"//  elicit: tol b" is no directive: write //elicit:tool b (a directive has no space after //, as //go:generate has none)`},
		{"//elicit:tol b", "//elicit:tool b", "unknown directive //elicit:tol (did you mean //elicit:tool?): the directives are //elicit:form, //elicit:tool, //elicit:task, //elicit:prompt, //elicit:resource, //elicit:annotations and //elicit:title"},
		{"//elicit:colour red", "", "unknown directive //elicit:colour: the directives are //elicit:form, //elicit:tool, //elicit:task, //elicit:prompt, //elicit:resource, //elicit:annotations and //elicit:title"},
		{"// elicit: what the user is asked", "", ""},
		{"// Elicit asks.", "", ""},
		{"//go:generate go tool elicitgen", "", ""},
		{"//elicit:form", "//elicit:form", ""},
	} {
		fixed, msg := directiveFix(tt.text)
		if fixed != tt.fixed || msg != tt.msg {
			t.Errorf("directiveFix(%q) = %q, %q; want %q, %q", tt.text, fixed, msg, tt.fixed, tt.msg)
		}
	}
}
