package main

// The fixtures of the suite's other elicitation scenarios (issue 15): one
// declaration each, named as the scenario's description asks.

// Capabilities asks one question of a client that may not be able to
// show it (scenario capability-check): the suite declares sampling only,
// and the machine answers -32021 naming the elicitation capability, as the
// spec requires (docs/design/conformance.md).
//
//elicit:tool test_input_required_result_capabilities
type Capabilities struct {
	Args     NoArgs
	UserName UserName `elicit:"user_name,message=What is your name?"`
}

// MultipleInputs asks three questions in one round (scenario
// multiple-input-requests): the client shows them at once and answers them
// in one retry.
//
//elicit:tool test_input_required_result_multiple_inputs
type MultipleInputs struct {
	Args     NoArgs
	UserName UserName      `elicit:"user_name,message=What is your name?"`
	Color    FavoriteColor `elicit:"color,message=What is your favorite color?,together"`
	Confirm  Confirm       `elicit:"confirm,message=Shall I greet you?,together"`
}

// ElicitationArgs are the arguments of test_elicitation.
type ElicitationArgs struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// UserInfo asks who the user is.
type UserInfo struct {
	// User's response
	Username string `elicit:"username,required"`
	// User's email address
	Email string `elicit:"email,required"`
}

// ToolsCallElicitation asks with the message the model passes (scenario
// tools-call-elicitation, 2025-11-25 clients).
//
//elicit:tool test_elicitation
type ToolsCallElicitation struct {
	Args     ElicitationArgs
	UserInfo UserInfo `elicit:"user_info,message=handler"`
}

// Status is an account status.
type Status string

const (
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
	StatusPending  Status = "pending"
)

// Defaults has a default for every primitive type (SEP-1034).
type Defaults struct {
	Name     string  `elicit:"name,default=John Doe"`
	Age      int     `elicit:"age,default=30"`
	Score    float64 `elicit:"score,default=95.5"`
	Status   Status  `elicit:"status,default=active"`
	Verified bool    `elicit:"verified,default=true"`
}

// SEP1034Defaults asks a form with defaults (scenario
// elicitation-sep1034-defaults, 2025-11-25 clients).
//
//elicit:tool test_elicitation_sep1034_defaults
type SEP1034Defaults struct {
	Args     NoArgs
	Defaults Defaults `elicit:"defaults,message=Please review your profile."`
}

// UntitledOption is an untitled single-select.
type UntitledOption string

const (
	Option1 UntitledOption = "option1"
	Option2 UntitledOption = "option2"
	Option3 UntitledOption = "option3"
)

// TitledOption is a titled single-select.
type TitledOption string

const (
	Value1 TitledOption = "value1" //elicit:title First Option
	Value2 TitledOption = "value2" //elicit:title Second Option
	Value3 TitledOption = "value3" //elicit:title Third Option
)

// LegacyOption is a titled single-select sent with the deprecated
// enumNames.
type LegacyOption string

const (
	Opt1 LegacyOption = "opt1" //elicit:title Option One
	Opt2 LegacyOption = "opt2" //elicit:title Option Two
	Opt3 LegacyOption = "opt3" //elicit:title Option Three
)

// TitledChoice is a titled multi-select's item.
type TitledChoice string

const (
	Choice1 TitledChoice = "value1" //elicit:title First Choice
	Choice2 TitledChoice = "value2" //elicit:title Second Choice
	Choice3 TitledChoice = "value3" //elicit:title Third Choice
)

// Enums has every enum shape of SEP-1330.
type Enums struct {
	UntitledSingle UntitledOption   `elicit:"untitledSingle"`
	TitledSingle   TitledOption     `elicit:"titledSingle"`
	LegacyEnum     LegacyOption     `elicit:"legacyEnum,enumnames"`
	UntitledMulti  []UntitledOption `elicit:"untitledMulti"`
	TitledMulti    []TitledChoice   `elicit:"titledMulti"`
}

// SEP1330Enums asks a form with every enum shape (scenario
// elicitation-sep1330-enums, 2025-11-25 clients).
//
//elicit:tool test_elicitation_sep1330_enums
type SEP1330Enums struct {
	Args  NoArgs
	Enums Enums `elicit:"enums,message=Please choose."`
}
