package gen

import (
	"go/ast"
	"go/build/constraint"
	"path/filepath"
	"slices"
	"strings"
)

// Build constraints. A generated file is built exactly when its source
// file is: it carries, as one //go:build line, the source's own //go:build
// expression and the GOOS and GOARCH of the source's name (x_linux.go,
// x_amd64.go, x_windows_arm64.go; the generated name, x_linux_elicit.go,
// ends in _elicit and so constrains nothing). A source file the host
// platform excludes is loaded under a platform that builds it (load.go).

// knownOS and knownArch are the GOOS and GOARCH values a file name can
// carry (go/build's lists, as of Go 1.26).
var (
	knownOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux",
		"nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"}
	knownArch = []string{"386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips", "mipsle",
		"mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390",
		"s390x", "sparc", "sparc64", "wasm"}
	// unixOS are the GOOS values the "unix" tag matches.
	unixOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux",
		"netbsd", "openbsd", "solaris"}
)

// fileConstraint is the //go:build expression of the source file name,
// whose syntax is f: its //go:build line and its name's GOOS and GOARCH,
// joined with &&; nil when it has neither.
func fileConstraint(name string, f *ast.File) constraint.Expr {
	var parts []constraint.Expr
	for _, tag := range nameTags(filepath.Base(name)) {
		parts = append(parts, &constraint.TagExpr{Tag: tag})
	}
	if x := goBuildLine(f); x != nil {
		parts = append(parts, x)
	}
	if len(parts) == 0 {
		return nil
	}
	x := parts[0]
	for _, p := range parts[1:] {
		x = &constraint.AndExpr{X: x, Y: p}
	}
	return x
}

// nameTags are the GOOS and GOARCH a file name constrains its file to, as
// go/build reads them: the name's last element, or its last two, after
// the first "_" (linux.go constrains nothing; x_linux.go does).
func nameTags(base string) []string {
	name := strings.TrimSuffix(strings.TrimSuffix(base, ".go"), "_test")
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return nil
	}
	l := strings.Split(name[i:], "_")
	n := len(l)
	if n >= 2 && slices.Contains(knownOS, l[n-2]) && slices.Contains(knownArch, l[n-1]) {
		return []string{l[n-2], l[n-1]}
	}
	if n >= 1 && (slices.Contains(knownOS, l[n-1]) || slices.Contains(knownArch, l[n-1])) {
		return []string{l[n-1]}
	}
	return nil
}

// goBuildLine is the expression of f's //go:build line, or nil.
func goBuildLine(f *ast.File) constraint.Expr {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if constraint.IsGoBuild(c.Text) {
				if x, err := constraint.Parse(c.Text); err == nil {
					return x
				}
			}
		}
	}
	return nil
}

// ports are the GOOS/GOARCH pairs platformFor tries, in this order after
// the host's: first-class ports first.
var ports = []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64", "windows/amd64", "windows/arm64",
	"linux/386", "linux/arm", "windows/386", "freebsd/amd64", "freebsd/arm64", "openbsd/amd64", "netbsd/amd64",
	"dragonfly/amd64", "illumos/amd64", "solaris/amd64", "aix/ppc64", "android/arm64", "ios/arm64", "plan9/amd64",
	"js/wasm", "wasip1/wasm", "linux/riscv64", "linux/ppc64le", "linux/s390x", "linux/loong64", "linux/mips64le"}

// platformFor is a GOOS/GOARCH pair under which x holds with no custom
// build tag (the release tags and gc do hold), the host's first; ok is
// false when there is none: the file needs a tag, and is built only when
// elicitgen runs with it (-tags), as go build does.
func platformFor(x constraint.Expr, hostOS, hostArch string) (goos, goarch string, ok bool) {
	for _, port := range append([]string{hostOS + "/" + hostArch}, ports...) {
		goos, goarch, _ = strings.Cut(port, "/")
		if x.Eval(func(tag string) bool {
			return tag == goos || tag == goarch || tag == "gc" || strings.HasPrefix(tag, "go1.") ||
				(tag == "unix" && slices.Contains(unixOS, goos))
		}) {
			return goos, goarch, true
		}
	}
	return "", "", false
}
