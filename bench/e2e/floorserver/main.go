// Command floorserver is the floor of the end-to-end benchmark (bench/e2e):
// the least a server can do to answer the deploy round over HTTP. net/http,
// the request body read into a pooled buffer, the JSON-RPC id and the
// requestState found by byte search (no JSON decoding), a state of a few
// bytes sealed and opened with AES-256-GCM and bound to the arguments, and
// responses assembled from precomputed bytes as application/json. It checks
// nothing an MCP server must check (protocol version, headers, the
// arguments, the answer's content beyond the environment), so no real
// server can be this cheap: it bounds from below what the transport, TLS-less
// HTTP/1.1 and the cipher cost on this machine.
//
//	floorserver -http 127.0.0.1:0
package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/elicitgen/elicitgen/bench/e2e/e2estats"
)

var (
	askPrefix  = []byte(`{"jsonrpc":"2.0","id":`)
	askMiddle  = []byte(`,"result":{"content":null,"requestState":"`)
	askSuffix  = []byte(`","resultType":"input_required","inputRequests":{"target":{"method":"elicitation/create","params":{"mode":"form","message":"Which environment should I deploy to?","requestedSchema":{"type":"object","properties":{"environment":{"type":"string","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","description":"Post in #deployments","default":false}},"required":["environment"]}}}}}}`)
	doneMiddle = []byte(`,"result":{"content":[{"type":"text","text":"Deploying api to staging and posting in #deployments."}],"resultType":"complete"}}`)
	badState   = []byte(`,"error":{"code":-32602,"message":"invalid or expired requestState"}}`)

	keyID      = []byte(`"id":`)
	keyState   = []byte(`"requestState":"`)
	keyArgs    = []byte(`"arguments":`)
	keyStaging = []byte(`"environment":"staging"`)
)

type floor struct {
	aead cipher.AEAD
	bufs sync.Pool
}

// field returns the bytes after key up to the first of the stop bytes.
func field(body, key []byte, stops string) []byte {
	i := bytes.Index(body, key)
	if i < 0 {
		return nil
	}
	rest := body[i+len(key):]
	if j := bytes.IndexAny(rest, stops); j >= 0 {
		return rest[:j]
	}
	return nil
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	buf := f.bufs.Get().(*bytes.Buffer)
	defer f.bufs.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, 256<<10)); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	body := buf.Bytes()
	id := field(body, keyID, ",}")
	args := sha256.Sum256(field(body, keyArgs, "}"))
	out := make([]byte, 0, 1024)
	out = append(out, askPrefix...)
	out = append(out, id...)
	if s := field(body, keyState, `"`); s != nil {
		var raw [64]byte
		n, err := base64.RawURLEncoding.Decode(raw[:], s)
		ok := err == nil && n > 12
		if ok {
			var plain [32]byte
			var p []byte
			p, err = f.aead.Open(plain[:0], raw[:12], raw[12:n], args[:])
			ok = err == nil && len(p) == 9 && bytes.Contains(body, keyStaging)
			if ok {
				var exp int64
				for i := range 8 {
					exp |= int64(p[i]) << (8 * i)
				}
				ok = time.Now().Unix() < exp
			}
		}
		if ok {
			out = append(out, doneMiddle...)
		} else {
			out = append(out, badState...)
		}
	} else {
		// The state: a nonce, then the sealed expiry (8 bytes) and step.
		var sealed [12 + 9 + 16]byte
		rand.Read(sealed[:12])
		plain := make([]byte, 9)
		exp := time.Now().Add(10 * time.Minute).Unix()
		for i := range 8 {
			plain[i] = byte(exp >> (8 * i))
		}
		f.aead.Seal(sealed[:12], sealed[:12], plain, args[:])
		out = append(out, askMiddle...)
		out = base64.RawURLEncoding.AppendEncode(out, sealed[:])
		out = append(out, askSuffix...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func main() {
	addr := flag.String("http", "127.0.0.1:0", "serve at this address, at /mcp")
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
	f := &floor{aead: aead, bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
	mux := http.NewServeMux()
	mux.Handle("POST /mcp", f)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("floorserver: serving MCP at http://%s/mcp", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	log.Fatal(srv.Serve(ln))
}
