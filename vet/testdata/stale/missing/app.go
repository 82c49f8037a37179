package missing

//go:generate go tool elicitgen

// Order asks for a drink.
type Order struct { // want `^app_elicit\.go is missing: elicitgen generates it for Order; run go generate$`
	Drink string `elicit:"drink"`
}
