package redisstore

import (
	"context"
	"crypto/tls"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/redis/go-redis/v9"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// TestNewClientURLForms: the URL forms NewClient reads. One server's URL
// (as before) is a *redis.Client; a URL with addr parameters is a
// *redis.ClusterClient seeded with every address, with the URL's
// credentials, TLS for rediss://, and the same bounded waits; a cluster
// URL naming a database other than 0, or a malformed addr, is an error
// that shows no password.
func TestNewClientURLForms(t *testing.T) {
	t.Setenv(CAEnv, "")
	single, err := NewClient("redis://app:hunter2@10.0.0.1:6380/2")
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	so := single.(*redis.Client).Options()
	if so.Addr != "10.0.0.1:6380" || so.DB != 2 || so.Username != "app" || so.Password != "hunter2" || so.TLSConfig != nil {
		t.Fatalf("single: %+v", so)
	}
	for _, u := range []string{
		"redis://app:hunter2@10.0.0.1:7000?addr=10.0.0.2:7001&addr=10.0.0.3:7002",
		"redis://app:hunter2@10.0.0.1:7000/0?addr=10.0.0.2:7001&addr=10.0.0.3:7002",
		"rediss://app:hunter2@10.0.0.1:7000?addr=10.0.0.2:7001&addr=10.0.0.3:7002",
	} {
		c, err := NewClient(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		cc, ok := c.(*redis.ClusterClient)
		if !ok {
			t.Fatalf("%s: %T, want a cluster client", u, c)
		}
		o := cc.Options()
		if strings.Join(o.Addrs, ",") != "10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:7002" || o.Username != "app" || o.Password != "hunter2" ||
			o.DialTimeout != time.Second || o.ReadTimeout != time.Second || o.WriteTimeout != time.Second || o.MaxRetries != 1 || !o.ContextTimeoutEnabled {
			t.Fatalf("%s: options %+v", u, o)
		}
		if tlsOn := o.TLSConfig != nil; tlsOn != strings.HasPrefix(u, "rediss:") || (tlsOn && o.TLSConfig.ServerName != "10.0.0.1") {
			t.Fatalf("%s: TLS config %+v", u, o.TLSConfig)
		}
		c.Close()
	}
	for _, u := range []string{
		"redis://app:hunter2@10.0.0.1:7000/3?addr=10.0.0.2:7001",       // a cluster has database 0 only
		"redis://app:hunter2@10.0.0.1:7000?addr=10.0.0.2",              // no port
		"redis://app:hunter2@10.0.0.1:7000?addr=10.0.0.2:7001&bogus=1", // unknown option
		"redis://app:hunter2@10.0.0.1:notaport?addr=10.0.0.2:7001",
	} {
		c, err := NewClient(u)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %q shows the password or spans lines", u, err)
		}
	}
}

// TestCAEnv: CAEnv names the PEM file a rediss:// client trusts alone;
// a file that cannot be read or holds no certificate is an error at
// NewClient; a redis:// URL ignores it.
func TestCAEnv(t *testing.T) {
	ca := redistest.OtherCAFile(t)
	t.Setenv(CAEnv, ca)
	c, err := NewClient("rediss://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	if o := c.(*redis.Client).Options(); o.TLSConfig == nil || o.TLSConfig.RootCAs == nil || o.TLSConfig.ServerName != "127.0.0.1" {
		t.Fatalf("TLS config %+v", o.TLSConfig)
	}
	c.Close()
	c, err = NewClient("redis://127.0.0.1:6379/0")
	if err != nil || c.(*redis.Client).Options().TLSConfig != nil {
		t.Fatalf("redis:// with %s set: %v", CAEnv, err)
	}
	c.Close()
	for _, bad := range []string{t.TempDir() + "/missing.pem", ca + ".empty"} {
		if strings.HasSuffix(bad, ".empty") {
			writeFile(t, bad, "not a certificate")
		}
		t.Setenv(CAEnv, bad)
		if _, err := NewClient("rediss://127.0.0.1:6379/0"); err == nil || !strings.Contains(err.Error(), CAEnv) {
			t.Errorf("%s=%s: %v, want an error naming %s", CAEnv, bad, err, CAEnv)
		}
		if _, err := NewClient("rediss://127.0.0.1:6379?addr=127.0.0.1:6380"); err == nil {
			t.Errorf("cluster, %s=%s: no error", CAEnv, bad)
		}
	}
}

// TestACLUser: an ACL user with a password, allowed only the stores'
// keys and channels (the default user turned off): every store works
// through redis://user:pass@HOST:PORT/0; a wrong password, an unknown
// user and no credentials are each one line from ClientFromSettings that
// never shows the password.
func TestACLUser(t *testing.T) {
	srv := redistest.Start(t)
	const pass = "s3cret-Pass-4711"
	for _, cmd := range [][]string{
		{"ACL", "SETUSER", "elicit", "on", ">" + pass, "~elicitgen:*", "&elicitgen:*", "+@all"},
		{"ACL", "SETUSER", "default", "off"},
	} {
		if _, err := srv.Do(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	srv.Auth("elicit", pass)
	good := "redis://elicit:" + pass + "@" + srv.Addr + "/0"
	c, err := ClientFromSettings(good, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exerciseStores(t, c)
	for name, u := range map[string]string{
		"wrong password": "redis://elicit:" + pass + "x@" + srv.Addr + "/0",
		"unknown user":   "redis://nobody:" + pass + "@" + srv.Addr + "/0",
		"no credentials": "redis://" + srv.Addr + "/0",
	} {
		c, err := ClientFromSettings(u, quiet)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, pass) || strings.Contains(msg, "\n") || !strings.Contains(msg, "user name and password") || !strings.Contains(msg, URLEnv) {
			t.Errorf("%s: %q: want one line about the credentials, naming the settings, without the password", name, msg)
		}
	}
}

// TestTLS: a rediss:// server whose certificate the test's CA signed
// serves every store when CAEnv names that CA; without it (the system's
// roots), with another CA, or under a name the certificate does not hold
// (localhost), ClientFromSettings refuses it with one line saying the
// certificate does not verify.
func TestTLS(t *testing.T) {
	srv := redistest.StartTLS(t)
	t.Setenv(CAEnv, srv.CAFile)
	c, err := ClientFromSettings(srv.URL, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exerciseStores(t, c)
	_, port, _ := strings.Cut(srv.Addr, ":")
	for name, setting := range map[string]struct{ url, ca string }{
		"system roots":   {srv.URL, ""},
		"another CA":     {srv.URL, redistest.OtherCAFile(t)},
		"another name":   {"rediss://localhost:" + port + "/0", srv.CAFile},
		"cluster, no CA": {"rediss://" + srv.Addr + "?addr=" + srv.Addr, ""},
	} {
		t.Setenv(CAEnv, setting.ca)
		c, err := ClientFromSettings(setting.url, quiet)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", name)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "TLS certificate does not verify") || !strings.Contains(msg, CAEnv) {
			t.Errorf("%s: %q: want one line saying the certificate does not verify", name, msg)
		}
	}
}

// TestProbeTLS: the probe that reads a server's verdict on the client's
// certificate without sending a command (as a start-up Ping that met a
// reset instead of the alert falls back to) says that the server requires
// a certificate when none is presented, that it refused one of another
// CA, and nothing for the right one or for a server without TLS.
func TestProbeTLS(t *testing.T) {
	srv := redistest.StartMutualTLS(t)
	t.Setenv(CAEnv, srv.CAFile)
	otherCert, otherKey := redistest.OtherClientCert(t)
	for name, files := range map[string]struct{ cert, key, want string }{
		"its certificate": {srv.ClientCertFile, srv.ClientKeyFile, ""},
		"no certificate":  {"", "", "requires a client certificate"},
		"another CA":      {otherCert, otherKey, "refused the client certificate"},
	} {
		setCert(t, files.cert, files.key)
		c, err := NewClient(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		why := refusal(probeTLS(c))
		c.Close()
		if files.want == "" && why != "" || !strings.Contains(why, files.want) {
			t.Errorf("%s: probe %q, want %q", name, why, files.want)
		}
	}
	plain, err := NewClient(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := probeTLS(plain); err != nil {
		t.Errorf("a server without TLS: %v", err)
	}
}

// TestClientCertificate: on a redis-server with --tls-auth-clients yes
// (its default once TLS is on), a client given CAEnv, CertEnv and KeyEnv
// serves every store. Without a certificate ClientFromSettings refuses it
// with one line saying the server requires one, and with one of another
// CA with one line saying the server refused it; over TLS 1.2 as over 1.3
// (the server's alerts differ). Only one of the two variables set, a file
// that cannot be read, or a certificate with another key are one line
// from NewClient that names the variable(s), for one server and for a
// cluster; a redis:// URL ignores them.
func TestClientCertificate(t *testing.T) {
	srv := redistest.StartMutualTLS(t)
	t.Setenv(CAEnv, srv.CAFile)
	setCert(t, srv.ClientCertFile, srv.ClientKeyFile)
	c, err := ClientFromSettings(srv.URL, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exerciseStores(t, c)
	otherCert, otherKey := redistest.OtherClientCert(t)
	for name, files := range map[string]struct{ cert, key, want string }{
		"no certificate": {"", "", "requires a client certificate"},
		"another CA":     {otherCert, otherKey, "refused the client certificate"},
	} {
		setCert(t, files.cert, files.key)
		c, err := ClientFromSettings(srv.URL, quiet)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", name)
		} else if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, files.want) || !strings.Contains(msg, CertEnv) || !strings.Contains(msg, URLEnv) {
			t.Errorf("%s: %q: want one line saying the server %s, naming %s", name, msg, files.want, CertEnv)
		} else {
			t.Logf("%s: %s", name, msg)
		}
		if why := refusal(pingTLS12(t, srv.URL)); !strings.Contains(why, files.want) {
			t.Errorf("%s, TLS 1.2: refusal %q, want it to say the server %s", name, why, files.want)
		}
	}
	missing := t.TempDir() + "/missing.pem"
	for name, files := range map[string]struct{ cert, key, want string }{
		"only the certificate":   {srv.ClientCertFile, "", CertEnv + " and " + KeyEnv},
		"only the key":           {"", srv.ClientKeyFile, CertEnv + " and " + KeyEnv},
		"unreadable certificate": {missing, srv.ClientKeyFile, CertEnv + ":"},
		"unreadable key":         {srv.ClientCertFile, missing, KeyEnv + ":"},
		"another key":            {srv.ClientCertFile, otherKey, CertEnv + " and " + KeyEnv},
		"key and certificate":    {srv.ClientKeyFile, srv.ClientCertFile, CertEnv + " and " + KeyEnv},
	} {
		setCert(t, files.cert, files.key)
		for _, u := range []string{srv.URL, "rediss://" + srv.Addr + "?addr=" + srv.Addr} {
			c, err := NewClient(u)
			if err == nil {
				c.Close()
				t.Errorf("%s, %s: no error", name, u)
			} else if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "BEGIN") || !strings.Contains(msg, files.want) {
				t.Errorf("%s, %s: %q: want one line naming %s, without the files' contents", name, u, msg, files.want)
			}
		}
		c, err := NewClient("redis://" + srv.Addr + "/0")
		if err != nil {
			t.Errorf("%s, redis://: %v", name, err)
		} else {
			c.Close()
		}
	}
}

// setCert sets CertEnv and KeyEnv for the rest of t.
func setCert(t *testing.T, cert, key string) {
	t.Helper()
	t.Setenv(CertEnv, cert)
	t.Setenv(KeyEnv, key)
}

// pingTLS12 returns the error of a PING through a NewClient of url that
// speaks TLS 1.2 at most.
func pingTLS12(t *testing.T, url string) error {
	t.Helper()
	c, err := NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*redis.Client).Options().TLSConfig.MaxVersion = tls.VersionTLS12
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// exerciseStores runs each store once on c: a replay claim (once), a
// sign-in flow and a grant, a task whose Wait is woken by an update.
func exerciseStores(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	g := NewReplayGuard(c, nil)
	if first, err := g.Claim(ctx, "acl-flow", time.Minute); !first || err != nil {
		t.Fatalf("claim: %v %v", first, err)
	}
	if first, err := g.Claim(ctx, "acl-flow", time.Minute); first || err != nil {
		t.Fatalf("second claim: %v %v", first, err)
	}
	grants, _ := NewGrants(c, &Options{Keys: testKeys(t)})
	if ok, err := grants.ClaimFlow(ctx, "f", time.Minute); !ok || err != nil {
		t.Fatalf("ClaimFlow: %v %v", ok, err)
	}
	if err := grants.CompleteFlow(ctx, "f", "alice", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := grants.PutGrant(ctx, "alice", "billing", []byte("token"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := grants.Grant(ctx, "alice", "billing"); !ok || err != nil || string(v) != "token" {
		t.Fatalf("Grant: %q %v %v", v, ok, err)
	}
	tasks, _ := NewTasks(c, &Options{Keys: testKeys(t)})
	if err := tasks.Create(ctx, newTaskRecord("acl-task", time.Hour)); err != nil {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() { woke <- tasks.Wait(ctx, "acl-task", 1) }()
	time.Sleep(50 * time.Millisecond)
	if r, err := tasks.Update(ctx, "acl-task", func(r *backend.TaskRecord) error { r.StatusMessage = "x"; return nil }); r == nil || err != nil {
		t.Fatalf("Update: %v %v", r, err)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait not woken by the update")
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
