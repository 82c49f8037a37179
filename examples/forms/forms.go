// Package forms shows elicitgen forms covering every property kind. Its
// generated code (forms_elicit.go) is committed and kept current by CI.
package forms

import "time"

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// Environment is where a deploy goes.
type Environment string

const (
	Dev     Environment = "dev"     //elicit:title Development
	Staging Environment = "staging" //elicit:title Staging
	Prod    Environment = "prod"    //elicit:title Production
)

// DeployForm asks where to deploy.
type DeployForm struct {
	// Where to deploy.
	Environment Environment `elicit:"environment,required,title=Environment"`
	// Post in #deployments
	Notify bool `elicit:"notify,default=false"`
}

// Color is an untitled enum.
type Color string

const (
	Red   Color = "red"
	Green Color = "green"
	Blue  Color = "blue"
)

// Profile is a form with one property of every kind.
//
//elicit:form
type Profile struct {
	// Your display name.
	Name  string  `elicit:"name,required,min=1,max=50"`
	Email string  `json:"email" elicit:",format=email"`
	Site  *string `elicit:"site,format=uri"`
	Age   uint8   `elicit:"age,min=13"`
	// Height in metres.
	Height    float64       `elicit:"height,min=0.5,max=2.5"`
	Ratio     *float32      `elicit:"ratio"`
	Favorite  Color         `elicit:"favorite,default=green"`
	Palette   []Color       `elicit:"palette,min=1,max=2,default=red|blue"`
	Tags      []string      `elicit:"tags,enum=go|mcp|ai"`
	Stage     []Environment `elicit:"stages"`
	Birthday  time.Time     `elicit:"birthday,format=date"`
	MeetAt    *time.Time    `elicit:"meet_at"`
	Size      string        `elicit:"size,enum=s|m|l,default=m"`
	Subscribe bool          `elicit:"subscribe,title=Subscribe to news"`
	internal  int
}
