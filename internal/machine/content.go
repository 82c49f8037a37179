package machine

// Reasons used by generated decoders.
const (
	ReasonRequired    = "is required"
	ReasonString      = "must be a string"
	ReasonBoolean     = "must be a boolean"
	ReasonNumber      = "must be a number"
	ReasonInteger     = "must be an integer"
	ReasonWhole       = "must be a whole number"
	ReasonUnsafe      = "is too large to be carried exactly by a JSON number"
	ReasonArray       = "must be an array of strings"
	ReasonDuplicate   = "must not repeat an item"
	ReasonEmail       = "must be an email address"
	ReasonURI         = "must be an absolute URI"
	ReasonDate        = "must be a calendar date (YYYY-MM-DD)"
	ReasonDateTime    = "must be an RFC 3339 date-time with a time zone"
	ReasonFloat32     = "is out of range for a 32-bit float"
	ReasonFormatLabel = "has an unsupported format"
)

// The format checks: the rules live in internal/format, which the
// generator shares (it checks default= values with them); these forward
// to them for generated decoders.
