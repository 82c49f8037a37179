package tagedit

//go:generate go tool elicitgen

// Other is a form whose generated code did not change: not reported.
type Other struct {
	Note string `elicit:"note"`
}

// Order asks how the user wants their coffee.
type Order struct { // want `^app_elicit\.go is stale: the code elicitgen generates for Order changed; run go generate$`
	Size string `elicit:"size,required,title=Cup size"`
}
