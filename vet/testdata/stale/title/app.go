package title

//go:generate go tool elicitgen

// Order asks for a drink.
type Order struct { // want `^app_elicit\.go is stale: the code elicitgen generates for Order changed; run go generate$`
	Drink string `elicit:"drink,title=Your drink"`
}
