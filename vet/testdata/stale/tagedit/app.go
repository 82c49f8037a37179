package tagedit

//go:generate go tool elicitgen

// Order asks how the user wants their coffee.
type Order struct { // want `^app_elicit\.go is stale: the code elicitgen generates for Order changed; run go generate$`
	Size string `elicit:"size,required,title=Cup size"`
}

// Other is a form whose generated code did not change.
type Other struct {
	Note string `elicit:"note"`
}
