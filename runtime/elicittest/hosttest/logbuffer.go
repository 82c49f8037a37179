package hosttest

import (
	"bytes"
	"strings"
	"sync"
)

// A LogBuffer holds what a server writes while a test reads it: give it
// as the io.Writer of a server's slog handler, or as a process's Stderr,
// and read String or Lines at any time, while the server still writes.
// Its zero value is ready to use; it must not be copied after first use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it may run at once with String, Lines and other Writes.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines are the complete lines written so far, without their newlines;
// a last line not yet ended by a newline is left out until it is.
func (b *LogBuffer) Lines() []string {
	s := b.String()
	end := strings.LastIndexByte(s, '\n')
	if end < 0 {
		return nil
	}
	return strings.Split(s[:end], "\n")
}
