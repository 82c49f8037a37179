package gen

import (
	"fmt"
	"strings"
)

// unifiedDiff renders a line diff of a (on disk) and b (what elicitgen
// writes) in unified format, with three lines of context. The headers say
// which side is which: --- a/NAME (on disk), +++ b/NAME (elicitgen), with
// /dev/null for the side of a file created or removed.
func unifiedDiff(name string, a, b []byte, action string) string {
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	oldName, newName := "a/"+name+" (on disk)", "b/"+name+" (elicitgen)"
	switch action {
	case "create":
		oldName = "/dev/null (" + name + " is not on disk)"
	case "remove":
		newName = "/dev/null (elicitgen removes " + name + ")"
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
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
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			// Removed lines before the lines that replace them, as diff -u.
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
