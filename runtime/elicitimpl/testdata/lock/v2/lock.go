// Package v2 holds the version lock as elicitgen writes it for code of
// version 2.
package v2

import "github.com/elicitgen/elicitgen/runtime/elicitimpl"

const (
	_ = elicitimpl.EnforceVersion(2 - elicitimpl.MinVersion)
	_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - 2)
)
