package main

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// NoArgs: the fixture tools take no arguments.
type NoArgs struct{}

// UserName asks for a name.
type UserName struct {
	Name string `elicit:"name,required"`
}

// FavoriteColor asks for a colour.
type FavoriteColor struct {
	Color string `elicit:"color,required"`
}

// Confirm asks for a yes or no.
type Confirm struct {
	OK bool `elicit:"ok,required"`
}

// Elicitation asks one question (scenarios basic-elicitation, result-type,
// missing-input-response, ignore-extra-params, validate-input).
//
//elicit:tool test_input_required_result_elicitation
type Elicitation struct {
	Args     NoArgs
	UserName UserName `elicit:"user_name,message=What is your name?"`
}

// MultiRound asks two questions in two rounds (scenario multi-round).
//
//elicit:tool test_input_required_result_multi_round
type MultiRound struct {
	Args  NoArgs
	Step1 UserName      `elicit:"step1,message=Step 1: What is your name?"`
	Step2 FavoriteColor `elicit:"step2,message=Step 2: What is your favorite color?"`
}

// RequestState confirms with state carried across the round (scenario
// request-state).
//
//elicit:tool test_input_required_result_request_state
type RequestState struct {
	Args    NoArgs
	Confirm Confirm `elicit:"confirm,message=Please confirm"`
}

// TamperedState is RequestState under another name (scenario
// tampered-state): its sealed state refuses any modification.
//
//elicit:tool test_input_required_result_tampered_state
type TamperedState struct {
	Args    NoArgs
	Confirm Confirm `elicit:"confirm,message=Please confirm"`
}
