// Package v3 holds the version lock as elicitgen writes it for code of
// version 3.
package v3

import "github.com/elicitgen/elicitgen/runtime/elicitimpl"

const (
	_ = elicitimpl.EnforceVersion(3 - elicitimpl.MinVersion)
	_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - 3)
)
