package gen

// Result is the outcome of Generate.
type Result struct {
	// Diagnostics, when not empty, mean nothing was emitted or written.
	Diagnostics Diagnostics
	// Changes lists what was written (or, in check mode, what would be).
	Changes []Change
}

// Generate runs the whole pipeline: load, check, emit, and write unless
// checkOnly. Diagnostics are returned in the Result, never as the error;
// the error is for failures of the go command or the disk.
func Generate(cfg Config, checkOnly bool) (*Result, error) {
	pkgs, fset, diags, err := Load(cfg)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return &Result{Diagnostics: diags}, nil
	}
	model, diags := Check(pkgs, fset)
	if len(diags) > 0 {
		return &Result{Diagnostics: diags}, nil
	}
	out, err := Emit(model)
	if err != nil {
		return nil, err
	}
	changes, err := Plan(out, cfg.Dir)
	if err != nil {
		return nil, err
	}
	if !checkOnly {
		if err := Write(out, changes); err != nil {
			return nil, err
		}
	}
	return &Result{Changes: changes}, nil
}
