package machine

import "testing"

// parseInputKey reads back every key inputKey writes, and takes a key
// whose suffix is no later asking for a first asking of the whole key.
func TestParseInputKey(t *testing.T) {
	for _, step := range []string{"milk", "user_name", "a"} {
		for n := 1; n <= 12; n++ {
			if s, k := parseInputKey(inputKey(step, n)); s != step || k != n {
				t.Errorf("parseInputKey(%q) = %q, %d; want %q, %d", inputKey(step, n), s, k, step, n)
			}
		}
	}
	for _, key := range []string{"milk.1", "milk.0", "milk.x", ".2", "milk."} {
		if s, k := parseInputKey(key); s != key || k != 1 {
			t.Errorf("parseInputKey(%q) = %q, %d; want the key itself, 1", key, s, k)
		}
	}
}
