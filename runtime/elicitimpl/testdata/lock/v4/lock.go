// Package v4 holds the version lock as elicitgen writes it for code of
// version 4.
package v4

import "github.com/elicitgen/elicitgen/runtime/elicitimpl"

const (
	_ = elicitimpl.EnforceVersion(4 - elicitimpl.MinVersion)
	_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - 4)
)
