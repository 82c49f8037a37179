package gen

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDiffLines checks that the ops of diffLines spell both sides, with
// positions that agree, on random edits of random files, and that a diff
// is minimal when the LCS table is used.
func TestDiffLines(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 2000 {
		a := make([]string, r.IntN(40))
		for i := range a {
			a[i] = strconv.Itoa(r.IntN(6))
		}
		b := slices.Clone(a)
		for range r.IntN(6) {
			switch i := r.IntN(len(b) + 1); r.IntN(3) {
			case 0:
				b = slices.Insert(b, i, strconv.Itoa(r.IntN(6)))
			case 1:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			default:
				if i < len(b) {
					b[i] = "x"
				}
			}
		}
		ops := diffLines(a, b)
		var ga, gb []string
		for _, op := range ops {
			if op.kind != '+' {
				if op.ai != len(ga) {
					t.Fatalf("%d: op %+v at a[%d]", iter, op, len(ga))
				}
				ga = append(ga, op.line)
			}
			if op.kind != '-' {
				if op.bi != len(gb) {
					t.Fatalf("%d: op %+v at b[%d]", iter, op, len(gb))
				}
				gb = append(gb, op.line)
			}
		}
		if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
			t.Fatalf("%d: ops spell %v / %v, want %v / %v", iter, ga, gb, a, b)
		}
		if edits, want := countEdits(ops), countEdits(lcsDiff(a, b)); edits != want {
			t.Fatalf("%d: %d edits, the LCS diff has %d", iter, edits, want)
		}
	}
}

func countEdits(ops []diffOp) int {
	n := 0
	for _, op := range ops {
		if op.kind != ' ' {
			n++
		}
	}
	return n
}

// TestDiffLargeFiles: a change in the middle of two large files, whose
// LCS table would take gigabytes, still gives a valid diff, quickly.
func TestDiffLargeFiles(t *testing.T) {
	var a []string
	for i := range 100000 {
		a = append(a, "line "+strconv.Itoa(i))
	}
	b := slices.Clone(a)
	for i := 10000; i < 90000; i += 7 {
		b[i] = "changed"
	}
	d := unifiedDiff("f", []byte(strings.Join(a, "\n")+"\n"), []byte(strings.Join(b, "\n")+"\n"), "update")
	if !strings.Contains(d, "+changed\n") || !strings.Contains(d, "-line 10000\n") {
		t.Fatalf("diff of %d bytes without the change", len(d))
	}
}
