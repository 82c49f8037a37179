package gen

import (
	"bytes"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Forms in files the host platform excludes (x_windows.go, generating on
// Linux): packages.Load reads only the files of the platform it runs for,
// so such a form would go ungenerated, and GOOS=windows go build would
// fail on the missing code. Load lists them (IgnoredFiles); for each that
// may declare a form or a tool, platformFor finds a GOOS/GOARCH that
// builds it, the package is loaded again for that platform, and its model
// keeps the files the host excluded. A file that only a custom build tag
// includes (//go:build integration, ignore) is left out, as go build
// leaves it out: run elicitgen with -tags to generate it.

// excludedFiles maps each GOOS/GOARCH to the package paths and files (by
// absolute path) the host's load excluded that it builds and that mention
// elicit.
func excludedFiles(pkgs []*packages.Package, cfg Config) map[string]map[string][]string {
	hostOS, hostArch := goEnv(cfg.Env, "GOOS", runtime.GOOS), goEnv(cfg.Env, "GOARCH", runtime.GOARCH)
	byPort := map[string]map[string][]string{}
	for _, pkg := range pkgs {
		for _, name := range pkg.IgnoredFiles {
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, generatedSuffix) {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil || !bytes.Contains(src, []byte("elicit")) {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				continue
			}
			x := fileConstraint(name, f)
			if x == nil {
				continue
			}
			goos, goarch, ok := platformFor(x, hostOS, hostArch)
			if !ok || (goos == hostOS && goarch == hostArch) {
				continue // a custom tag, or a cgo file the host excludes for CGO_ENABLED=0
			}
			port := goos + "/" + goarch
			if byPort[port] == nil {
				byPort[port] = map[string][]string{}
			}
			byPort[port][pkg.PkgPath] = append(byPort[port][pkg.PkgPath], name)
		}
	}
	return byPort
}

// goEnv is the value of name in env (the go command's environment), else
// def.
func goEnv(env []string, name, def string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok && v != "" {
			return v
		}
	}
	if v := os.Getenv(name); v != "" && env == nil {
		return v
	}
	return def
}

// loadPlatform loads the packages of files for port and checks them: the
// model of those files only, and the diagnostics positioned in them.
func loadPlatform(cfg Config, port string, files map[string][]string) (*model, Diagnostics, error) {
	goos, goarch, _ := strings.Cut(port, "/")
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	pcfg := cfg
	pcfg.Env = append(slices.Clone(env), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	pcfg.Patterns = slices.Sorted(maps.Keys(files))
	pkgs, fset, loadDiags, _, err := loadPackages(pcfg)
	if err != nil {
		return nil, nil, err
	}
	wanted := map[string]bool{}
	for _, names := range files {
		for _, n := range names {
			wanted[n] = true
		}
	}
	m, diags := checkPackages(pkgs, fset)
	var kept Diagnostics
	for _, d := range append(withoutPending(loadDiags, m), diags...) {
		if wanted[d.Pos.Filename] {
			kept = append(kept, d)
		}
	}
	for _, p := range m.Packages {
		p.Files = slices.DeleteFunc(p.Files, func(f *fileModel) bool { return !wanted[f.Source] })
		p.Generated = nil
	}
	return m, kept, nil
}

// mergeModel adds the files of other's packages to m's.
func mergeModel(m, other *model) {
	for _, op := range other.Packages {
		if len(op.Files) == 0 {
			continue
		}
		i := slices.IndexFunc(m.Packages, func(p *pkgModel) bool { return p.Path == op.Path })
		if i < 0 {
			m.Packages = append(m.Packages, op)
			continue
		}
		p := m.Packages[i]
		p.Files = append(p.Files, op.Files...)
		slices.SortFunc(p.Files, func(a, b *fileModel) int { return strings.Compare(a.Source, b.Source) })
	}
	slices.SortFunc(m.Packages, func(a, b *pkgModel) int { return strings.Compare(a.Path, b.Path) })
}
