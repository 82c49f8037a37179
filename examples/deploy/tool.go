package main

//go:generate go run github.com/elicitgen/elicitgen/cmd/elicitgen

// Environment is where a deploy goes.
type Environment string

const (
	Dev     Environment = "dev"     //elicit:title Development
	Staging Environment = "staging" //elicit:title Staging
	Prod    Environment = "prod"    //elicit:title Production
)

// Target asks where to deploy.
type Target struct {
	Environment Environment `elicit:"environment,required"`
	// Post in #deployments
	Notify bool `elicit:"notify,default=false"`
}

// Confirmation asks before a production deploy.
type Confirmation struct {
	// Deploy to production now.
	Confirm bool `elicit:"confirm,required"`
}

// DeployArgs are the arguments the model supplies.
type DeployArgs struct {
	Service string `json:"service" jsonschema:"the service to deploy"`
}

// Deploy deploys a service to an environment, asking which one unless the
// model supplied it, and asking for confirmation before production; a
// client that cannot ask gets a preview and a confirmation token instead,
// and deploys by calling again with it.
//
//elicit:tool deploy
//elicit:annotations destructive
type Deploy struct {
	Args    DeployArgs
	Target  Target       `elicit:"target,message=Which environment should I deploy to?,prefill,fallback=arguments"`
	Confirm Confirmation `elicit:"confirm,message=handler,ask=handler,confirm,fallback=preview,once"`
}
