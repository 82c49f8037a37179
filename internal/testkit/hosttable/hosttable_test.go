package hosttable

import "testing"

// TestHostMatrix holds the table of hosts of docs/results/hosts.md to
// hosttest.Hosts.
func TestHostMatrix(t *testing.T) {
	MatrixTable(t, "../../..")
}
