package gen

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Change is one file Write would create, update or remove.
type Change struct {
	Path   string
	Action string // "create", "update" or "remove"
	Diff   string // unified diff of old and new content (Generate: in check mode only)
}

// compare compares out with the disk: what Write would change, with the
// diffs only when withDiff, and how many files are unchanged (those are
// not listed).
func compare(out *output, dir string, withDiff bool) (changes []Change, unchanged int, err error) {
	for _, p := range slices.Sorted(maps.Keys(out.Files)) {
		want := out.Files[p]
		have, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: p, Action: "create"})
		case err != nil:
			return nil, 0, err
		case bytes.Equal(have, want):
			unchanged++
			continue
		case !isOursBytes(p, have):
			// Check reports the files of a package it loads; this one (a
			// file the build ignores, say) it did not see.
			return nil, 0, fmt.Errorf("%s was not written by elicitgen (its first line is not %q): rename it: elicitgen never overwrites a file it did not write", rel(dir, p), "// "+header)
		default:
			changes = append(changes, Change{Path: p, Action: "update"})
		}
		if withDiff {
			c := &changes[len(changes)-1]
			c.Diff = unifiedDiff(rel(dir, p), have, want, c.Action)
		}
	}
	for _, p := range out.Stale {
		c := Change{Path: p, Action: "remove"}
		if withDiff {
			have, err := os.ReadFile(p)
			if err != nil {
				return nil, 0, err
			}
			c.Diff = unifiedDiff(rel(dir, p), have, nil, c.Action)
		}
		changes = append(changes, c)
	}
	return changes, unchanged, nil
}

// write applies the changes: writes new and updated files, removes stale
// ones. Files whose bytes are unchanged are never rewritten, so their
// modification times (and the build cache) are kept.
func write(out *output, changes []Change) error {
	for _, c := range changes {
		var err error
		if c.Action == "remove" {
			err = os.Remove(c.Path)
		} else {
			err = writeFileAtomic(c.Path, out.Files[c.Path])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it into place, so a reader never sees half a file. The file is
// created with mode 0644 less the umask, as os.WriteFile would create it.
func writeFileAtomic(path string, data []byte) error {
	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := filepath.Join(filepath.Dir(path), ".elicitgen-"+hex.EncodeToString(suffix[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func rel(dir, p string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
