// Package forms holds the synthetic forms of elicitgen's benchmarks: Five,
// five scalar properties, and Twelve, twelve properties with titled and
// untitled enums, a multi-select, every format and optional pointers. Their
// generated code (forms_elicit.go) is committed and kept current by CI.
//
// The json tags name every property as its elicit tag does, so that the
// jsonschema-go baseline can re-marshal validated content into the structs.
package forms

import "time"

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// Five is the small form: five scalar properties.
type Five struct {
	// Your display name.
	Name   string  `json:"name" elicit:"name,required,min=1,max=40"`
	Age    int     `json:"age" elicit:"age,min=0,max=150"`
	Score  float64 `json:"score" elicit:"score,min=0,max=100"`
	Active bool    `json:"active" elicit:"active,default=true"`
	// Anything else we should know.
	Comment string `json:"comment" elicit:"comment,max=200"`
}

// Priority is a titled enum.
type Priority string

const (
	Low    Priority = "low"    //elicit:title Low
	Normal Priority = "normal" //elicit:title Normal
	High   Priority = "high"   //elicit:title High
	Urgent Priority = "urgent" //elicit:title Urgent
)

// Color is an untitled enum.
type Color string

const (
	Red    Color = "red"
	Green  Color = "green"
	Blue   Color = "blue"
	Yellow Color = "yellow"
)

// Label is a titled enum used as a multi-select.
type Label string

const (
	Bug     Label = "bug"     //elicit:title Bug
	Feature Label = "feature" //elicit:title Feature
	Docs    Label = "docs"    //elicit:title Documentation
	Perf    Label = "perf"    //elicit:title Performance
	Test    Label = "test"    //elicit:title Tests
)

// Twelve is the large form: twelve properties of every kind.
type Twelve struct {
	// A short summary.
	Title    string     `json:"title" elicit:"title,required,min=1,max=80"`
	Email    string     `json:"email" elicit:"email,required,format=email"`
	Homepage *string    `json:"homepage,omitempty" elicit:"homepage,format=uri"`
	Due      string     `json:"due" elicit:"due,format=date"`
	Start    *time.Time `json:"start,omitempty" elicit:"start"`
	Priority Priority   `json:"priority" elicit:"priority,required,title=Priority"`
	Color    Color      `json:"color" elicit:"color,default=blue"`
	Labels   []Label    `json:"labels" elicit:"labels,min=1,max=3"`
	Count    *int       `json:"count,omitempty" elicit:"count,min=1,max=1000"`
	Budget   *float64   `json:"budget,omitempty" elicit:"budget,min=0"`
	Public   bool       `json:"public" elicit:"public,default=false"`
	// Anything else we should know.
	Notes string `json:"notes" elicit:"notes,max=500"`
}
