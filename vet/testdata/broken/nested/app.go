package nested

//go:generate go tool elicitgen

// Level is how loud.
type Level string

const (
	Low  Level = "low"
	High Level = "high"
)

type Inner struct{ A int }

// Ask is a form.
type Ask struct {
	Level Level `elicit:"level,required"`
	Count int   `elicit:"count,min=1,max=9"`
	In    Inner `elicit:"in"` // want `^field In is a nested struct: a form is flat`
}
