package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Grants is a backend.GrantStore on Redis: the sign-in flows of every
// instance sharing one Redis (and one Options.Prefix), and the grants they
// produced, sealed with the key ring. Give the same store to the tools
// (ToolOptions.Grants) and to the connect pages (ConnectOptions.Grants).
type Grants struct {
	c redis.UniversalClient
	o Options
}

var _ backend.GrantStore = (*Grants)(nil)

// NewGrants returns the grant store on c. o.Keys is required: grants and
// the users of done flows are sealed with it.
func NewGrants(c redis.UniversalClient, o *Options) (*Grants, error) {
	if o == nil || o.Keys == nil {
		return nil, errors.New("redisstore: NewGrants needs Options.Keys, the key ring that seals grants")
	}
	return &Grants{c: c, o: o.withDefaults()}, nil
}

// Values of flow records (after PREFIX flow:FLOWID).
const (
	flowClaimed = formatV1 + "claim:" // + token
	flowDone    = formatV1 + "done:"  // + the subject, sealed
)

// Bindings of sealed records. Their Tool is not a valid MCP tool name (it
// has spaces), and their ArgsDigest hashes a domain no JSON begins with,
// so no sealed record is ever a requestState, nor the reverse.
const (
	flowRecordTool = "elicitgen flow record"
	grantTool      = "elicitgen grant"
)

func (g *Grants) flowKey(flowID string) string { return g.o.Prefix + "flow:" + flowID }

// ClaimFlow implements backend.GrantStore: one atomic set-if-absent of
// PREFIX flow:FLOWID, which holds the done record once the flow finished,
// so a finished flow is never claimed again. The claim lasts ttl
// (elicitrt.DefaultStateTTL when ttl <= 0: never without expiry).
func (g *Grants) ClaimFlow(ctx context.Context, flowID string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		ttl = elicitrt.DefaultStateTTL
	}
	claimed, err := call(ctx, &g.o, func(ctx context.Context) (bool, error) {
		return claim(ctx, g.c, g.flowKey(flowID), flowClaimed+newToken(), ttl)
	})
	if err != nil {
		return false, failed(ctx, &g.o, "flow claim", "the sign-in cannot be recorded", err)
	}
	return claimed, nil
}

// releaseScript deletes KEYS[1] when it holds a claim (ARGV[1] begins its
// value), never a done record.
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// ReleaseFlow implements backend.GrantStore: it deletes the flow's claim,
// unless the flow is done.
func (g *Grants) ReleaseFlow(ctx context.Context, flowID string) error {
	_, err := call(ctx, &g.o, func(ctx context.Context) (int, error) {
		return releaseScript.Run(ctx, g.c, []string{g.flowKey(flowID)}, flowClaimed).Int()
	})
	if err != nil {
		return failed(ctx, &g.o, "flow release", "the sign-in cannot be released", err)
	}
	return nil
}

// CompleteFlow implements backend.GrantStore: the flow's record becomes
// done, with subject sealed, for ttl (ttl 0: Options.GrantTTL).
func (g *Grants) CompleteFlow(ctx context.Context, flowID, subject string, ttl time.Duration) error {
	if ttl <= 0 {
		ttl = g.o.GrantTTL
	}
	sealed, err := g.o.Keys.SealRecord(flowBinding(flowID), 0, []byte(subject), g.o.Now(), ttl)
	if err != nil {
		return err
	}
	_, err = call(ctx, &g.o, func(ctx context.Context) (string, error) {
		return g.c.Set(ctx, g.flowKey(flowID), flowDone+sealed, max(ttl, time.Millisecond)).Result()
	})
	if err != nil {
		return failed(ctx, &g.o, "flow completion", "the sign-in cannot be recorded", err)
	}
	return nil
}

// DenyFlow implements backend.GrantStore: the done record with the empty
// subject.
func (g *Grants) DenyFlow(ctx context.Context, flowID string, ttl time.Duration) error {
	return g.CompleteFlow(ctx, flowID, "", ttl)
}

// FlowSubject implements backend.GrantStore. A done record that does not
// open (sealed by a key no longer in the ring, or altered) reads as not
// done, and is logged: the user signs in again.
func (g *Grants) FlowSubject(ctx context.Context, flowID string) (string, bool, error) {
	v, err := call(ctx, &g.o, func(ctx context.Context) (string, error) {
		return g.c.Get(ctx, g.flowKey(flowID)).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return "", false, nil
	case err != nil:
		return "", false, failed(ctx, &g.o, "flow read", "the sign-in cannot be read", err)
	case strings.HasPrefix(v, flowClaimed):
		return "", false, nil
	case !strings.HasPrefix(v, flowDone):
		return "", false, errUnknownFormat(&g.o, "flow record", v)
	}
	_, subject, err := g.o.Keys.OpenRecord(flowBinding(flowID), v[len(flowDone):], g.o.Now())
	if err != nil {
		g.o.Logger.Warn("elicitgen: redisstore: a flow record does not open (key ring changed?); taken as not done")
		return "", false, nil
	}
	return string(subject), true, nil
}

// PutGrant implements backend.GrantStore: the grant, sealed, under
// PREFIX grant:DIGEST for ttl (ttl 0: Options.GrantTTL). A grant longer
// than elicitrt.MaxRecordLen is an error.
func (g *Grants) PutGrant(ctx context.Context, subject, name string, grant []byte, ttl time.Duration) error {
	if ttl <= 0 {
		ttl = g.o.GrantTTL
	}
	b := grantBinding(subject, name)
	sealed, err := g.o.Keys.SealRecord(b, 0, grant, g.o.Now(), ttl)
	if err != nil {
		return err
	}
	_, err = call(ctx, &g.o, func(ctx context.Context) (string, error) {
		return g.c.Set(ctx, g.grantKey(&b), formatV1+sealed, max(ttl, time.Millisecond)).Result()
	})
	if err != nil {
		return failed(ctx, &g.o, "grant write", "the grant cannot be stored", err)
	}
	return nil
}

// Grant implements backend.GrantStore. A grant that does not open reads
// as absent, and is logged.
func (g *Grants) Grant(ctx context.Context, subject, name string) ([]byte, bool, error) {
	b := grantBinding(subject, name)
	v, err := call(ctx, &g.o, func(ctx context.Context) (string, error) {
		return g.c.Get(ctx, g.grantKey(&b)).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, failed(ctx, &g.o, "grant read", "the grant cannot be read", err)
	case !strings.HasPrefix(v, formatV1):
		return nil, false, errUnknownFormat(&g.o, "grant", v)
	}
	_, grant, err := g.o.Keys.OpenRecord(b, v[len(formatV1):], g.o.Now())
	if err != nil {
		g.o.Logger.Warn("elicitgen: redisstore: a grant does not open (key ring changed?); taken as absent")
		return nil, false, nil
	}
	return grant, true, nil
}

// errUnknownFormat is the error of a record this release cannot read: a
// later release's format (see the package documentation on upgrades).
func errUnknownFormat(o *Options, what, v string) error {
	o.Logger.Error("elicitgen: redisstore: "+what+" of an unknown format", "version", version(v))
	return errors.New("elicitgen: redisstore: a " + what + " of format " + version(v) + ", which this release cannot read (written by a later release?)")
}

// grantKey names a grant by the digest of its user and step: no user id
// in key names.
func (g *Grants) grantKey(b *elicitrt.RecordBinding) string {
	return g.o.Prefix + "grant:" + base64.RawURLEncoding.EncodeToString(b.Digest[:])
}

// flowBinding is what a flow's done record is sealed under.
func flowBinding(flowID string) elicitrt.RecordBinding {
	return elicitrt.RecordBinding{Kind: flowRecordTool, Digest: digest("elicitgen flow record v1", flowID)}
}

// grantBinding is what subject's grant under name is sealed under.
func grantBinding(subject, name string) elicitrt.RecordBinding {
	return elicitrt.RecordBinding{Kind: grantTool, Digest: digest("elicitgen grant v1", subject, name)}
}

// digest hashes domain and parts, each length-prefixed.
func digest(domain string, parts ...string) [32]byte {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write([]byte{0})
	for _, p := range parts {
		h.Write(binary.AppendUvarint(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}
