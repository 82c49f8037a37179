// Package redistest runs a real redis-server for tests: on a free
// 127.0.0.1 port, with persistence off (--save "" --appendonly no; or the
// append-only file on, for StartPersistent), in a temporary directory,
// stopped when the test ends; or speaking TLS only, with a certificate
// from a CA made in the test (StartTLS), requiring a client certificate
// too (StartMutualTLS); or three of them as a Redis Cluster
// (StartCluster, which also needs redis-cli), with replicas if asked
// (StartClusterWith), over TLS if asked (ClusterOptions.TLS), whose
// masters a test kills to watch a replica take over (Cluster.Kill,
// Cluster.WaitFailover). No mock: the tests of the Redis stores talk to
// the server Debian ships.
//
// When redis-server is not installed, Start skips the test with a message
// saying how to install it; under CI=true it fails the test instead, so
// that CI never passes by skipping.
package redistest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is one redis-server process started by Start.
type Server struct {
	// Addr is the server's host:port on 127.0.0.1.
	Addr string
	// URL is its redis:// URL (database 0).
	URL string

	// CAFile is the PEM file of the CA that signed the server's
	// certificate (StartTLS, StartMutualTLS), else "".
	CAFile string
	// ClientCertFile and ClientKeyFile are the PEM files of a client
	// certificate that CAFile's CA signed, and of its key, for a server
	// that requires one (StartMutualTLS), else "".
	ClientCertFile, ClientKeyFile string

	t          testing.TB
	bin        string
	dir        string
	persistent bool
	extra      []string    // more arguments: cluster mode, TLS
	tls        *tls.Config // Do's, for a TLS server
	user, pass string      // Do's AUTH, after Auth
	cmd        *exec.Cmd
	exit       chan struct{} // closed when cmd has been waited for
}

// Binary returns the path of redis-server, or skips t (fails it under
// CI=true) when it is not installed.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	const how = "redis-server is not installed: install it (Debian: apt-get install -y redis-server) to run the Redis tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(how + " (CI=true: not skipping)")
	}
	t.Skip(how)
	return ""
}

// Start starts a redis-server on a free 127.0.0.1 port, persistence off,
// and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, false)
}

// StartPersistent is Start with the append-only file on and fsynced on
// every write (--appendonly yes --appendfsync always): what a killed
// server had acknowledged is there after Restart.
func StartPersistent(t testing.TB) *Server {
	t.Helper()
	return start(t, true)
}

func start(t testing.TB, persistent bool) *Server {
	t.Helper()
	s := newServer(t)
	s.persistent = persistent
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// newServer is a Server not started yet, on a free port.
func newServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: Binary(t), dir: t.TempDir()}
	s.Addr = "127.0.0.1:" + freePort(t)
	s.URL = "redis://" + s.Addr + "/0"
	return s
}

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// Auth makes Do authenticate as user with pass from now on (once the
// test has turned the default user off).
func (s *Server) Auth(user, pass string) { s.user, s.pass = user, pass }

// start runs the server on s.Addr and waits until it answers PING.
func (s *Server) start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	persistence := []string{"--appendonly", "no"}
	if s.persistent {
		persistence = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	ports := []string{"--port", port}
	if s.tls != nil {
		ports = []string{"--port", "0", "--tls-port", port}
	}
	args := append([]string{"--bind", "127.0.0.1", "--save", "",
		"--dir", s.dir, "--daemonize", "no", "--loglevel", "warning"}, ports...)
	args = append(append(args, persistence...), s.extra...)
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redistest: starting redis-server: %v", err)
	}
	s.exit = make(chan struct{})
	go func(cmd *exec.Cmd, exit chan struct{}) { cmd.Wait(); close(exit) }(s.cmd, s.exit)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := s.ping(); err == nil {
			return
		}
		select {
		case <-s.exit:
			s.t.Fatalf("redistest: redis-server on %s exited at start (port taken?)", s.Addr)
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("redistest: redis-server on %s did not answer within 10s", s.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping sends PING over a fresh connection and expects +PONG.
func (s *Server) ping() error {
	_, err := s.Do("PING")
	return err
}

// Do sends one command over a fresh connection (TLS for a TLS server;
// first AUTH after Auth) and returns the first line of the reply, or the
// whole of a bulk string (a test's look at the server without a client
// library).
func (s *Server) Do(args ...string) (string, error) {
	var c net.Conn
	var err error
	if s.tls != nil {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", s.Addr, s.tls)
	} else {
		c, err = net.DialTimeout("tcp", s.Addr, time.Second)
	}
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	commands := [][]string{args}
	if s.user != "" {
		commands = [][]string{{"AUTH", s.user, s.pass}, args}
	}
	for _, cmd := range commands {
		fmt.Fprintf(&b, "*%d\r\n", len(cmd))
		for _, a := range cmd {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	var reply string
	for range commands {
		if reply, err = readReply(r); err != nil {
			return "", err
		}
	}
	return reply, nil
}

// readReply reads one reply: its first line, or a whole bulk string.
func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if strings.HasPrefix(line, "-") {
		return "", fmt.Errorf("redis: %s", line[1:])
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(line, "$")); strings.HasPrefix(line, "$") && err == nil && n >= 0 {
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return line, nil
}

// DBSize returns the number of keys in database 0.
func (s *Server) DBSize() int { return s.Int("DBSIZE") }

// Int runs a command whose reply is an integer, and returns it; any other
// reply fails the test.
func (s *Server) Int(args ...string) int {
	s.t.Helper()
	line, err := s.Do(args...)
	if err != nil {
		s.t.Fatalf("redistest: %s: %v", args[0], err)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(line, ":"))
	if err != nil {
		s.t.Fatalf("redistest: %s reply %q", args[0], line)
	}
	return n
}

// Stop kills the server (SIGKILL: as abrupt as a crash) and waits for it.
// Its data is gone, unless it is persistent. Stop on a stopped server does
// nothing.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
}

// Restart starts the server again on the same address: empty, unless it
// is persistent.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}
