package enumadd

//go:generate go tool elicitgen

// Size is how big a coffee is.
type Size string

const (
	Small  Size = "small"
	Medium Size = "medium"
	Large  Size = "large"
)

// Order asks which size.
type Order struct { // want `^app_elicit\.go is stale: the code elicitgen generates for Order changed; run go generate$`
	Size Size `elicit:"size,required"`
}
