package machine_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The deploy tool (deployserver_test.go) for a client that cannot ask,
// and the words of its argument errors.

// TestNoElicitation: for a client that declares no elicitation, a step
// with fallback=arguments is answered by the arguments or is a tool error
// naming what is missing; a confirmation (fallback=preview) is a preview
// and a single-use token, which confirms the same call once and is
// ignored where no confirmation is asked; on every transport and era.
func TestNoElicitation(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := deploySession(t, transport, era, nil)
				got, res, err := callDeploy(t, cs, map[string]any{"service": "api"})
				if err != nil || !res.IsError || got != "environment is required: one of dev, staging, prod" {
					t.Fatalf("fallback=arguments: %q %v %v", got, res, err)
				}
				got, _, err = callDeploy(t, cs, map[string]any{"service": "api", "environment": "staging"})
				if err != nil || got != "Deploying api to staging without notifying." {
					t.Fatalf("prefilled without elicitation: %q %v", got, err)
				}
				// Production needs a confirmation nobody can give here: a
				// preview and a token, then the same call with the token.
				prod := map[string]any{"service": "api", "environment": "prod"}
				preview, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: prod})
				if err != nil || preview.IsError || len(preview.Content) != 2 ||
					preview.Content[0].(*mcp.TextContent).Text != "Preview: this deploys api to production without notifying." {
					t.Fatalf("preview: %+v %v", preview, err)
				}
				token := previewToken(t, preview)
				confirmed := map[string]any{"service": "api", "environment": "prod", elicitrt.PreviewTokenArgument: token}
				if got, _, err := callDeploy(t, cs, confirmed); err != nil || got != "Deploying api to prod without notifying." {
					t.Fatalf("confirmed with the token: %q %v", got, err)
				}
				if got, res, err := callDeploy(t, cs, confirmed); err != nil || !res.IsError || !strings.Contains(got, "new preview") {
					t.Fatalf("the token used again: %q %v", got, err)
				}
				staging := map[string]any{"service": "api", "environment": "staging", elicitrt.PreviewTokenArgument: token}
				if got, res, err := callDeploy(t, cs, staging); err != nil || res.IsError || got != "Deploying api to staging without notifying." {
					t.Fatalf("a token where no confirmation is asked is ignored: %q %v", got, err)
				}
				// Invalid prefilled arguments are a tool error naming them (the
				// SDK validates them against the input schema, which carries the
				// form's enum, before the machine does).
				got, res, err = callDeploy(t, cs, map[string]any{"service": "api", "environment": "moon"})
				if err != nil || !res.IsError || !strings.Contains(got, "environment") {
					t.Fatalf("invalid argument: %q %v", got, err)
				}
			})
		}
	}
}

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
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := deploySession(t, transport, era, &hosttest.User{})
				for _, c := range cases {
					got, res, err := callDeploy(t, cs, c.args)
					if err != nil || !res.IsError || got != c.want {
						t.Errorf("%v: got %q (%v), want %q", c.args, got, err, c.want)
					}
				}
			})
		}
	}
}
