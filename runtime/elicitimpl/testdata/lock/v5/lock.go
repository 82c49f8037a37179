// Package v5 holds the version lock as elicitgen writes it for code of
// version 5.
package v5

import "github.com/elicitgen/elicitgen/runtime/elicitimpl"

const (
	_ = elicitimpl.EnforceVersion(5 - elicitimpl.MinVersion)
	_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - 5)
)
