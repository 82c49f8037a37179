// Command sdkserver is the baseline of the end-to-end benchmark
// (bench/e2e): the deploy tool written by hand against go-sdk, as a Go user
// would write it without elicitgen. mcp.AddTool with a typed argument
// struct (the SDK infers, validates and decodes the input schema), the
// SDK's multi round-trip types (InputRequests, RequestState,
// InputResponses), client capabilities through req.ClientCapabilities(),
// a requestState of JSON sealed with AES-256-GCM and bound to the tool and
// the arguments, single use of the production confirmation, and the SDK's
// stateless streamable HTTP handler with its defaults (event-stream
// responses). It serves the 2026-07-28 protocol only.
//
//	sdkserver -http 127.0.0.1:0
package main

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/bench/e2e/e2estats"
)

// Args are the deploy tool's arguments; the model may answer the target
// question in them.
type Args struct {
	Service     string `json:"service" jsonschema:"the service to deploy"`
	Environment string `json:"environment,omitempty" jsonschema:"dev, staging or prod"`
	Notify      *bool  `json:"notify,omitempty" jsonschema:"post in #deployments"`
}

// state is what the requestState carries between rounds.
type state struct {
	Environment string    `json:"env,omitempty"`
	Notify      bool      `json:"notify,omitempty"`
	Asked       string    `json:"asked"`
	Expires     time.Time `json:"exp"`
}

var (
	targetSchema  = json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","description":"Post in #deployments","default":false}},"required":["environment"]}`)
	confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","description":"Deploy to production now."}},"required":["confirm"]}`)
	errBadState   = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid or expired requestState"}
)

type deployTool struct {
	aead cipher.AEAD
	mu   sync.Mutex
	used map[[32]byte]time.Time
}

func (d *deployTool) ad(args json.RawMessage) []byte {
	sum := sha256.Sum256(args)
	return append([]byte("deploy:"), sum[:]...)
}

func (d *deployTool) seal(st state, args json.RawMessage) string {
	plain, _ := json.Marshal(st)
	nonce := make([]byte, d.aead.NonceSize())
	rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(d.aead.Seal(nonce, nonce, plain, d.ad(args)))
}

func (d *deployTool) open(s string, args json.RawMessage) (state, error) {
	var st state
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(raw) < d.aead.NonceSize() {
		return st, errBadState
	}
	plain, err := d.aead.Open(nil, raw[:d.aead.NonceSize()], raw[d.aead.NonceSize():], d.ad(args))
	if err != nil || json.Unmarshal(plain, &st) != nil || time.Now().After(st.Expires) {
		return st, errBadState
	}
	return st, nil
}

// claim makes a confirmed state usable once.
func (d *deployTool) claim(s string, until time.Time) bool {
	id := sha256.Sum256([]byte(s))
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.used[id]; ok {
		return false
	}
	now := time.Now()
	for k, exp := range d.used {
		if now.After(exp) {
			delete(d.used, k)
		}
	}
	d.used[id] = until
	return true
}

func (d *deployTool) ask(st state, key, message string, schema json.RawMessage, args json.RawMessage) *mcp.CallToolResult {
	st.Asked = key
	st.Expires = time.Now().Add(10 * time.Minute)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{key: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}},
		RequestState:  d.seal(st, args),
	}
}

func text(s string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func validEnv(e string) bool { return e == "dev" || e == "staging" || e == "prod" }

func (d *deployTool) handle(ctx context.Context, req *mcp.CallToolRequest, args Args) (*mcp.CallToolResult, any, error) {
	var st state
	if args.Environment != "" {
		if !validEnv(args.Environment) {
			return text("environment: must be one of dev, staging, prod", true), nil, nil
		}
		st.Environment = args.Environment
		st.Notify = args.Notify != nil && *args.Notify
	}
	confirmed := false
	if req.Params.RequestState != "" {
		var err error
		if st, err = d.open(req.Params.RequestState, req.Params.Arguments); err != nil {
			return nil, nil, err
		}
		resp, _ := req.Params.InputResponses[st.Asked].(*mcp.ElicitResult)
		if resp == nil {
			return nil, nil, errBadState
		}
		switch resp.Action {
		case "decline", "cancel":
			return text(fmt.Sprintf("Nothing was deployed: the %s question was %sd.", st.Asked, resp.Action), false), nil, nil
		}
		switch st.Asked {
		case "target":
			env, _ := resp.Content["environment"].(string)
			notify, isBool := resp.Content["notify"].(bool)
			if _, present := resp.Content["notify"]; !validEnv(env) || present && !isBool {
				return d.ask(state{}, "target", "Which environment should I deploy to? (one of dev, staging, prod)", targetSchema, req.Params.Arguments), nil, nil
			}
			st.Environment, st.Notify = env, notify
		case "confirm":
			confirm, ok := resp.Content["confirm"].(bool)
			if !ok {
				return d.ask(st, "confirm", "Deploy "+args.Service+" to production now? (yes or no)", confirmSchema, req.Params.Arguments), nil, nil
			}
			if !d.claim(req.Params.RequestState, st.Expires) {
				return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState already used"}
			}
			if !confirm {
				return text("Nothing was deployed: "+args.Service+" to production was not confirmed.", false), nil, nil
			}
			confirmed = true
		}
	}
	caps := req.ClientCapabilities()
	canAsk := caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
	if st.Environment == "" {
		if !canAsk {
			return text("environment is required: one of dev, staging, prod", true), nil, nil
		}
		return d.ask(st, "target", "Which environment should I deploy to?", targetSchema, req.Params.Arguments), nil, nil
	}
	if st.Environment == "prod" && !confirmed {
		if !canAsk {
			return nil, nil, errors.New("this tool needs the client to support form-mode elicitation")
		}
		return d.ask(st, "confirm", "Deploy "+args.Service+" to production now?", confirmSchema, req.Params.Arguments), nil, nil
	}
	notify := "without notifying"
	if st.Notify {
		notify = "and posting in #deployments"
	}
	return text(fmt.Sprintf("Deploying %s to %s %s.", args.Service, st.Environment, notify), false), nil, nil
}

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve streamable HTTP at this address, MCP at /mcp")
	flag.Parse()
	e2estats.Start()

	key := make([]byte, 32)
	rand.Read(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		log.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		log.Fatal(err)
	}
	d := &deployTool{aead: aead, used: map[[32]byte]time.Time{}}
	server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "deploy",
		Description: "Deploy deploys a service to an environment, asking which one unless the model supplied it, and asking for confirmation before production.",
	}, d.handle)

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("sdkserver: serving MCP at http://%s/mcp", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	log.Fatal(srv.Serve(ln))
}
