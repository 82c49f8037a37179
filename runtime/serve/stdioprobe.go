package serve

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Probe, then initialize, on stdio. Hosts of the 2025-11-25 era that know
// of 2026-07-28 (Claude Code 2.1.280 behind a flag, GitHub Copilot CLI
// 1.0.8x) first send server/discover, and then initialize anyway on the
// same connection. The go-sdk's session records the discover's
// 2026-07-28 parameters as the session's own, and answers the initialize
// "duplicate initialize received": the host's session is dead before its
// first question. With StdioTransport.Server set, the discovers that come
// before any other message are answered by a session of their own (in
// memory, of the same server), so the connection's session begins with
// the first other message: an initialize opens a 2025-11-25 session, a
// 2026-07-28 request (whose _meta carries its version) is served modern.
// Over HTTP the same sequence already works: a discover is served
// stateless, and an initialize opens a session.

const methodDiscover = "server/discover"

// stdioProbeWait bounds the answer of one probe by its session.
const stdioProbeWait = 5 * time.Second

// stdioProbes answers a connection's probes until its session starts. Its
// methods run on the connection's read loop only.
type stdioProbes struct {
	server  *mcp.Server
	started bool // a message other than a probe went to the session
	probed  bool // a probe went to the session (no server to answer it aside)
}

// answer answers msg aside and reports true when it is a probe that came
// before the session started; otherwise msg goes to the session.
func (p *stdioProbes) answer(c *stdioConn, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	isProbe := ok && req.IsCall() && req.Method == methodDiscover
	if p.started || !isProbe || p.server == nil {
		p.noteStart(c, req, isProbe)
		return false
	}
	resp, err := p.ask(req)
	if err != nil {
		if c.logger != nil {
			c.logger.Warn("stdio: a server/discover before the session could not be answered aside; the session answers it", "err", err)
		}
		p.noteStart(c, req, true)
		return false
	}
	if data, err := jsonrpc.EncodeMessage(resp); err == nil {
		_ = c.writeLine(data) // a write error ends the connection at the next read
	}
	return true
}

// noteStart records that req (nil for a response) went to the session,
// and warns when an initialize follows a probe the session answered.
func (p *stdioProbes) noteStart(c *stdioConn, req *jsonrpc.Request, isProbe bool) {
	if !p.started && isProbe {
		p.probed = true
		return
	}
	if p.probed && req != nil && req.Method == "initialize" && c.logger != nil {
		c.logger.Warn("stdio: an initialize after a server/discover, which the session took for the 2026-07-28 protocol: set StdioTransport.Server so that the initialize opens a 2025-11-25 session")
	}
	p.started = true
}

// ask sends req to a session of its own, in memory, and returns its
// response. The session ends with the answer, so that nothing the server
// sends to all its sessions waits on it.
func (p *stdioProbes) ask(req *jsonrpc.Request) (*jsonrpc.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), stdioProbeWait)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	session, err := p.server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Write(ctx, req); err != nil {
		return nil, err
	}
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == req.ID {
			return resp, nil
		}
	}
}
