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

// plan compares out with the disk: what Write would change, with the
// diffs only when withDiff, and how many files are unchanged (those are
// not listed).
func plan(out *output, dir string, withDiff bool) (changes []Change, unchanged int, err error) {
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
		default:
			changes = append(changes, Change{Path: p, Action: "update"})
		}
		if withDiff {
			changes[len(changes)-1].Diff = unifiedDiff(rel(dir, p), have, want)
		}
	}
	for _, p := range out.Stale {
		c := Change{Path: p, Action: "remove"}
		if withDiff {
			have, err := os.ReadFile(p)
			if err != nil {
				return nil, 0, err
			}
			c.Diff = unifiedDiff(rel(dir, p), have, nil)
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

// unifiedDiff renders a line diff of a and b in unified format, with three
// lines of context.
func unifiedDiff(name string, a, b []byte) string {
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			same := end
			for same < len(ops) && ops[same].kind == ' ' {
				same++
			}
			if same == len(ops) || same-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = same
		}
		aStart, bStart := ops[start].ai, ops[start].bi
		var aLen, bLen int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", hunkStart(aStart, aLen), aLen, hunkStart(bStart, bLen), bLen)
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

func hunkStart(i, n int) int {
	if n == 0 {
		return i
	}
	return i + 1
}

type diffOp struct {
	kind   byte // ' ', '-', '+'
	line   string
	ai, bi int // line index in a and b where the op stands
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// maxDiffCells bounds the longest-common-subsequence table of diffLines
// (4 bytes a cell).
const maxDiffCells = 4 << 20

// diffLines is a line diff: the common prefix and suffix, and between them
// a longest-common-subsequence diff, or, when that table would exceed
// maxDiffCells, the old lines removed and the new ones added.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-pre-suf)
	for i := range pre {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for i, l := range ma {
			ops = append(ops, diffOp{'-', l, pre + i, pre})
		}
		for j, l := range mb {
			ops = append(ops, diffOp{'+', l, pre + len(ma), pre + j})
		}
	} else {
		for _, op := range lcsDiff(ma, mb) {
			op.ai += pre
			op.bi += pre
			ops = append(ops, op)
		}
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, diffOp{' ', a[len(a)-k], len(a) - k, len(b) - k})
	}
	return ops
}

// lcsDiff is a longest-common-subsequence line diff, with a quadratic
// table.
func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		default:
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		}
	}
	return ops
}
