// Package flows declares the test tools of elicitgen's state machines: a
// three-step survey whose steps use every fallback kind, and a one-step poll.
// Their generated code (flows_elicit.go) is committed and kept current by
// CI; flows_test.go drives them through the Go SDK on both protocol eras.
package flows

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// Color is a favourite colour.
type Color string

const (
	Red   Color = "red"
	Green Color = "green"
	Blue  Color = "blue"
)

// Colors asks for colours; every property has a default, so it can be
// answered with no one there.
type Colors struct {
	Favorite Color   `elicit:"favorite,default=green"`
	Also     []Color `elicit:"also,default="`
}

// Rating asks for stars.
type Rating struct {
	Stars int `elicit:"stars,required,min=1,max=5"`
}

// Name asks for a name.
type Name struct {
	Name  string `elicit:"name,required,min=1,max=40"`
	Email string `elicit:"email,format=email"`
}

// SurveyArgs are the survey's and the poll's arguments.
type SurveyArgs struct {
	Topic string `json:"topic" jsonschema:"what the survey is about"`
}

// Survey asks three questions in three rounds.
//
//elicit:tool survey
//elicit:annotations readonly,idempotent
type Survey struct {
	Args   SurveyArgs
	Colors Colors `elicit:"colors,message=handler,fallback=defaults"`
	Rating Rating `elicit:"rating,message=How many stars?,fallback=handler"`
	Name   Name   `elicit:"name,message=What is your name?,fallback=error"`
}

// Poll asks one question.
//
//elicit:tool poll
//elicit:annotations openworld
type Poll struct {
	Args SurveyArgs
	Name Name `elicit:"name,message=What is your name?"`
}

// Signup asks three forms in one round: the rating and the colours join
// the name's round (together), so a client shows all three at once and
// retries once. An anonymous signup skips the name (ask=handler): its
// round is the rating and the colours.
//
//elicit:tool signup
type Signup struct {
	Args   SurveyArgs
	Name   Name   `elicit:"name,message=What is your name?,ask=handler"`
	Rating Rating `elicit:"rating,message=How many stars?,together"`
	Colors Colors `elicit:"colors,message=Which colours?,together,fallback=defaults"`
}

// Everything has one property of every kind, for the decoder's fuzz target.
type Everything struct {
	Count    uint8   `elicit:"count,required,max=200"`
	Big      int64   `elicit:"big"`
	Ratio    float32 `elicit:"ratio"`
	Favorite Color   `elicit:"favorite,required"`
	Picks    []Color `elicit:"picks,max=2"`
	Day      string  `elicit:"day,format=date"`
	At       string  `elicit:"at,format=date-time"`
	Site     string  `elicit:"site,format=uri"`
	Mail     string  `elicit:"mail,format=email"`
	Note     *string `elicit:"note,max=100"`
	Agree    bool    `elicit:"agree"`
}

// Strict asks the Everything form once.
//
//elicit:tool strict
type Strict struct {
	Args       SurveyArgs
	Everything Everything `elicit:"everything,message=Fill in everything."`
}
