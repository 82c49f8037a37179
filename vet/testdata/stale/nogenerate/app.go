package nogenerate // want `^package nogenerate declares forms, tools, prompts or resources, but no //go:generate line runs elicitgen: add //go:generate go tool elicitgen$`

// Order asks for a drink.
type Order struct {
	Drink string `elicit:"drink"`
}
