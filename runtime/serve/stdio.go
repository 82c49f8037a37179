package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/transport"
)

// DefaultStdioMaxLineBytes is the longest line, in bytes without its
// newline, that a [StdioTransport] accepts by default: 4 MiB. A stdio client
// is the local process that started the server, so the bound is there to
// keep one runaway line from taking the process's memory, not to shape
// traffic; it is sixteen times [DefaultMaxRequestBodyBytes], which already
// holds the largest legitimate request, and leaves room for client responses
// (answers to elicitation/create on the 2025-11-25 path).
const DefaultStdioMaxLineBytes = 4 << 20

// stdioReadBuffer is the size of the transport's read buffer; a longer line
// is assembled from several reads.
const stdioReadBuffer = 64 << 10

// StdioTransport is an [mcp.Transport] of newline-delimited JSON-RPC
// messages, like [mcp.StdioTransport], that survives bad input: a line that
// is not JSON is answered with a JSON-RPC error -32700 "Parse error" (id
// null), a line that is JSON but not a JSON-RPC message with -32600
// "Invalid Request" (with the line's id when it has a usable one, else null),
// and the connection carries on reading. The SDK's own stdio transport ends
// the session on the first such line, which for a server means the process
// exits.
//
// A line longer than MaxLineBytes is answered -32600 "Invalid Request: line
// exceeds N bytes" (id null) and skipped; it is never held in memory whole
// (the transport keeps at most MaxLineBytes plus its 64 KiB read buffer).
// Blank lines are ignored. A trailing "\r" is accepted (CRLF input). When In
// ends, the connection still answers the calls it has read (for up to five
// seconds) before it reports the end, so "printf '...' | server" gets its
// answers.
//
// An initialize's params are slimmed as the HTTP handler slims them, so
// that the session keeps only what the server reads of them (the
// protocol version, the elicitation modes, the tasks extension, the
// client's name and version cut to 64 and 32 bytes): see
// docs/security/hardening-http.md.
//
// JSON-RPC batches (a line holding an array) are answered -32600 and
// skipped: MCP removed batching in protocol 2025-06-18, and both protocol
// eras this runtime serves (2025-11-25 and 2026-07-28) forbid it.
//
// Note: go-sdk v1.8.0's client ends its session when it receives a response
// with a null id, so a go-sdk client never sees these answers survive; it
// never sends a line that earns one either. They are for other clients, for
// people typing at the server, and for the server's own survival.
type StdioTransport struct {
	// In is read for messages. Nil means os.Stdin. Close closes it when it
	// is an io.Closer (this unblocks a pending read on a pipe).
	In io.Reader
	// Out receives messages, one per line. Nil means os.Stdout. Close
	// closes it when it is an io.Closer other than os.Stdout or os.Stderr.
	Out io.Writer
	// MaxLineBytes bounds one inbound line, newline excluded. Zero or
	// negative means [DefaultStdioMaxLineBytes].
	MaxLineBytes int
	// Logger, if set, receives one warning per rejected line (the reason and
	// the line's length, never its contents).
	Logger *slog.Logger
	// Server, when set, is the server this transport serves: the probes a
	// host sends before anything else (server/discover, then initialize
	// anyway: stdioprobe.go) are then answered by a session of its own,
	// so that the connection's session starts with the first message after
	// them. An initialize after a probe opens a 2025-11-25 session, as it
	// does without one, and a 2026-07-28 request is served modern. Without
	// it the go-sdk's session takes a probe for the 2026-07-28 protocol and
	// refuses the initialize that follows as a duplicate.
	Server *mcp.Server
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect returns a connection over t's streams and starts reading In. Call
// it once per transport: the connection owns the streams.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	in, out := t.In, t.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	limit := t.MaxLineBytes
	if limit <= 0 {
		limit = DefaultStdioMaxLineBytes
	}
	c := &stdioConn{
		in:       in,
		out:      out,
		limit:    limit,
		logger:   t.Logger,
		probes:   &stdioProbes{server: t.Server},
		incoming: make(chan jsonrpc.Message),
		readDone: make(chan struct{}),
		closed:   make(chan struct{}),
	}
	go c.readLoop(bufio.NewReaderSize(in, stdioReadBuffer))
	return c, nil
}

// stdioConn is the [mcp.Connection] of a [StdioTransport].
//
// One goroutine (readLoop) reads In line by line, answers bad lines itself
// and hands good messages to Read over an unbuffered channel, so Read can
// also wait on the context and on Close: a blocked read of os.Stdin cannot
// be interrupted portably, so it is never done on Read's goroutine.
type stdioConn struct {
	in     io.Reader
	out    io.Writer
	limit  int // longest line kept
	logger *slog.Logger
	probes *stdioProbes // answers the probes before the session starts

	writeMu sync.Mutex // serializes writes to out (Write and error answers)

	incoming chan jsonrpc.Message // good messages, from readLoop
	readDone chan struct{}        // closed when readLoop stops; readErr is then set
	readErr  error                // why readLoop stopped (io.EOF at end of input)

	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool // calls handed to Read and not yet answered
	drained   chan struct{}       // closed when pending empties; nil: nobody waits

	closeOnce sync.Once
	closed    chan struct{} // closed by Close
	closeErr  error
}

// SessionID implements [mcp.Connection]: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }

// Read returns the next good message. At the end of In it returns io.EOF,
// as it does after Close; a failed read of In is returned as it is.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg := <-c.incoming:
		return msg, nil
	case <-c.readDone:
		if c.readErr == io.EOF {
			c.awaitAnswers(ctx)
		}
		return nil, c.readErr
	}
}

// stdioDrainWait bounds how long Read holds back the end of input while
// calls already read are still unanswered.
const stdioDrainWait = 5 * time.Second

// awaitAnswers waits, at most stdioDrainWait, until every call handed to
// Read has been answered. When the input ends, the SDK cancels the calls
// still in flight and fails their answers, so a client that writes a request
// and then closes its side of the pipe (echo ... | server) would otherwise
// lose the answer, depending on timing.
func (c *stdioConn) awaitAnswers(ctx context.Context) {
	c.pendingMu.Lock()
	if len(c.pending) == 0 {
		c.pendingMu.Unlock()
		return
	}
	if c.drained == nil {
		c.drained = make(chan struct{})
	}
	drained := c.drained
	c.pendingMu.Unlock()
	timer := time.NewTimer(stdioDrainWait)
	defer timer.Stop()
	select {
	case <-drained:
	case <-c.closed:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// Write sends msg as one line. Concurrent writes are serialized.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.pendingMu.Lock()
		delete(c.pending, resp.ID)
		if len(c.pending) == 0 && c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
		c.pendingMu.Unlock()
	}
	return err
}

// writeLine writes data and a newline under the write lock. It still
// writes after Close: the SDK closes the connection when the input ends and
// then writes the answers to the requests still in flight, which must reach
// the client (on os.Stdout, which Close leaves open). After Close, a write
// to an Out that Close closed fails with that stream's error.
func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops the connection: a pending or later Read returns io.EOF, and In
// and Out are closed as [StdioTransport] documents (so later writes fail,
// except to os.Stdout). It
// may be called many times, concurrently; every call returns the first
// call's result.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		// Not under writeMu: a write blocked on Out must not block Close;
		// closing Out below is what unblocks it.
		close(c.closed)
		var errs []error
		if cl, ok := c.in.(io.Closer); ok {
			errs = append(errs, cl.Close())
		}
		if cl, ok := c.out.(io.Closer); ok && c.out != os.Stdout && c.out != os.Stderr {
			errs = append(errs, cl.Close())
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// readLoop reads lines until In ends or fails, or the connection closes.
func (c *stdioConn) readLoop(br *bufio.Reader) {
	defer close(c.readDone)
	for {
		line, tooLong, err := c.readLine(br)
		if tooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: line exceeds "+strconv.Itoa(c.limit)+" bytes", "line too long", -1)
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			msg, code, text, id := stdioDecode(line)
			if msg == nil {
				c.reject(id, code, text, text, len(line))
			} else if c.probes.answer(c, msg) {
				// a probe before the session started, answered aside
			} else {
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
					c.pendingMu.Lock()
					if c.pending == nil {
						c.pending = make(map[jsonrpc.ID]bool)
					}
					c.pending[req.ID] = true
					c.pendingMu.Unlock()
				}
				select {
				case c.incoming <- msg:
				case <-c.closed:
					c.readErr = io.EOF
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine returns the next line without its newline. A line longer than
// c.limit is read to its end and dropped (tooLong, line nil). err is set when
// In ended or failed; line then holds what came before.
func (c *stdioConn) readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		body := bytes.TrimSuffix(chunk, []byte("\n"))
		if !tooLong {
			if len(line)+len(body) > c.limit {
				tooLong, line = true, nil
			} else {
				line = append(line, body...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, tooLong, err
	}
}

// stdioDecode decodes one non-blank line. For a bad line it returns a nil
// message, the JSON-RPC error code and message to answer with, and the id
// to answer to (nil: null).
func stdioDecode(line []byte) (msg jsonrpc.Message, code int64, text string, id json.RawMessage) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error", nil
	}
	if line[0] == '[' {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported", nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 && probe.ID[0] != '{' && probe.ID[0] != '[' &&
			!bytes.Equal(probe.ID, []byte("true")) && !bytes.Equal(probe.ID, []byte("false")) {
			id = probe.ID // a string, a number or null
		}
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request", id
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		transport.SlimInitialize(req) // the session keeps only what the server reads of it
	}
	return msg, 0, "", nil
}

// reject answers a bad line with a JSON-RPC error and logs it. size is the
// line's length, or -1 when it was too long to keep.
func (c *stdioConn) reject(id json.RawMessage, code int64, text, reason string, size int) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: text}})
	if err == nil {
		err = c.writeLine(data)
	}
	if c.logger != nil {
		c.logger.Warn("stdio: rejected an inbound line", "reason", reason, "code", code, "bytes", size, "writeError", err)
	}
}
