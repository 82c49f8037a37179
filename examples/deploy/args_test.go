package main

import (
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestArgumentErrorsInFormWords: arguments the input schema refuses are a
// tool error in the words the form decoder uses, naming each property and
// what it accepts (a prefilled property in its form's words, the same a
// form's "Please correct" shows), never the schema library's text; on
// every transport and era.
func TestArgumentErrorsInFormWords(t *testing.T) {
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"service": "api", "environment": "production"},
			"invalid arguments: environment: must be one of dev, staging, prod"},
		{map[string]any{"service": "api", "notify": "yes"},
			"invalid arguments: notify: must be a boolean"},
		{map[string]any{"environment": "moon", "service": 5},
			"invalid arguments: environment: must be one of dev, staging, prod; service: must be a string"},
		{map[string]any{"environment": "dev"},
			"invalid arguments: service: is required"},
		{map[string]any{"service": "api", "enviroment": "dev"},
			"invalid arguments: enviroment: is not an argument of this tool (it takes confirmation_token, environment, notify, service)"},
	}
	for _, transport := range transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := session(t, transport, era, &user{})
				for _, c := range cases {
					got, res, err := call(t, cs, c.args)
					if err != nil || !res.IsError || got != c.want {
						t.Errorf("%v: got %q (%v), want %q", c.args, got, err, c.want)
					}
				}
			})
		}
	}
}
