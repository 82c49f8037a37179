package elicitimpl

import "github.com/elicitgen/elicitgen/internal/contract"

// Version lock between generated code and this package, after protobuf-go's
// protoimpl.EnforceVersion. Every generated file contains
//
//	const (
//		_ = elicitimpl.EnforceVersion(GenVersion - elicitimpl.MinVersion)
//		_ = elicitimpl.EnforceVersion(elicitimpl.MaxVersion - GenVersion)
//	)
//
// with the GenVersion of the elicitgen that wrote it. A runtime too new for
// the code (MinVersion raised) or too old for it (MaxVersion below) makes one
// constant negative, which does not fit the unsigned EnforceVersion, so the
// build fails at that line. The fix: run the elicitgen of the same module
// version as this runtime (`go tool elicitgen` after `go get -tool`), then
// regenerate with `go generate ./...`.
//
// Release steps: bump GenVersion when generated code starts using something
// new here; raise MinVersion when this package drops something old generated
// code used; MaxVersion always equals GenVersion. Versions: 1, the first;
// 2, Step.Confirm (a confirmation whose boolean must be true); 3, this
// package (code of 1 and 2 imported everything from package runtime, where
// the version lock no longer is: such code fails to build at its version
// line, under the comment that says to regenerate); 4, Step.Digest (what
// the person is shown, so that no release opens another's states as
// answers: docs/guide/deploys.md), without which the runtime refuses to build
// code of 3.
const (
	// GenVersion is the version of the code the current elicitgen writes.
	GenVersion = contract.GenVersion
	// MinVersion is the oldest generated code this runtime still supports.
	MinVersion = 5
	// MaxVersion is the newest generated code this runtime supports.
	MaxVersion = GenVersion
)

// EnforceVersion is the unsigned type whose conversions implement the
// version lock described above.
type EnforceVersion uint
