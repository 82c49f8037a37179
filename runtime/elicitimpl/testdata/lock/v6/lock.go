// Package v6 holds the version lock as elicitgen writes it for code of
// version 6.
package v6

import "github.com/elicitgen/elicitgen/runtime/elicitimpl"

const (
	_ = elicitimpl.EnforceVersion(6 - elicitimpl.MinVersion)
	_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - 6)
)
