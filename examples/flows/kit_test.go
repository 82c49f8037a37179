package flows

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// TestKitTogether: the signup's three together steps, scripted in their
// declaration order with the generated forms: one round on 2026-07-28
// (the kit matches each input key to its step), three questions in turn on
// 2025-11-25. An invalid rating is asked again alone, with the reason,
// the other answers kept: after the round on 2026-07-28, at once on
// 2025-11-25.
var tea = SurveyArgs{Topic: "tea"}

func TestKitTogether(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, NewServer, &elicittest.Options{Era: era})
			c.Call("signup", tea,
				elicittest.Accept(SignupStepName, Name{Name: "Ada"}).Message("What is your name?"),
				elicittest.Accept(SignupStepRating, Rating{Stars: 4}).Message("How many stars?"),
				elicittest.Accept(SignupStepColors, Colors{Favorite: Blue}).Default("favorite", "green"),
			).WantText(t, "signup: Ada, 4 stars, blue")
			name := elicittest.Accept(SignupStepName, Name{Name: "Ada"})
			colors := elicittest.Accept(SignupStepColors, Colors{Favorite: Blue})
			bad := elicittest.Accept(SignupStepRating, map[string]any{"stars": 9})
			again := elicittest.Accept(SignupStepRating, Rating{Stars: 5}).Reason("stars")
			script, reask := []elicittest.Step{name, bad, colors, again}, 3 // one round, then the rating alone
			if era == elicittest.Legacy {
				script, reask = []elicittest.Step{name, bad, again, colors}, 2 // one question after another
			}
			out := c.Call("signup", tea, script...)
			out.WantText(t, "signup: Ada, 5 stars, blue")
			if n := len(out.Questions); n != 4 || out.Questions[reask].Key != "rating.2" {
				t.Errorf("questions: %v", out.Questions)
			}
		})
	}
}
