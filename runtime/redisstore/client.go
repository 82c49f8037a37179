package redisstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// CAEnv is the documented name of the environment variable that names a
// PEM file of CA certificates: when it is set, the server certificate of a
// rediss:// URL must chain to one of them (and the system's roots are not
// used); when it is not, to the system's roots.
const CAEnv = "ELICITGEN_REDIS_CA"

// CertEnv and KeyEnv are the documented names of the environment
// variables that name the PEM files of a client certificate (its chain
// may follow it) and of its private key: when both are set, a rediss://
// client presents that certificate, as a Redis with --tls-auth-clients yes
// (redis-server's default once TLS is on) requires.
const (
	CertEnv = "ELICITGEN_REDIS_CERT"
	KeyEnv  = "ELICITGEN_REDIS_KEY"
)

// NewClient returns a Redis client for url, one of
//
//	redis://[user:password@]HOST:PORT/DB       one server (rediss:// for TLS, or unix://PATH)
//	redis://[user:password@]HOST:PORT?addr=HOST2:PORT2&addr=HOST3:PORT3
//	                                           a Redis Cluster, as go-redis's
//	                                           ParseClusterURL reads it (rediss:// for TLS)
//
// A URL with an addr parameter is a cluster: a *redis.ClusterClient seeded
// with every address; otherwise a *redis.Client. Waits the URL leaves
// unset are bounded: dial, read and write timeouts of one second, one
// retry (the stores' writes are idempotent), deadlines from each call's
// context. Over TLS the server's certificate must verify against the
// system's roots, or against the CA file that CAEnv names, and the client
// presents the certificate that CertEnv and KeyEnv name, if they do. Its
// error never repeats the URL, which may hold a password.
func NewClient(url string) (redis.UniversalClient, error) {
	if isClusterURL(url) {
		return newClusterClient(url)
	}
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, errors.New("redisstore: the Redis URL is not a valid redis://HOST:PORT/DB, rediss:// or unix:// URL")
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = bounded(o.DialTimeout), bounded(o.ReadTimeout), bounded(o.WriteTimeout), bounded(o.PoolTimeout)
	if o.MaxRetries == 0 {
		o.MaxRetries = 1
	}
	o.DialerRetries = 1
	o.ContextTimeoutEnabled = true
	// Maintenance notifications are for managed clusters that announce
	// moves; a plain redis-server does not, and probing for them costs a
	// round trip per connection.
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if err := tlsFromEnv(o.TLSConfig); err != nil {
		return nil, err
	}
	return redis.NewClient(o), nil
}

// isClusterURL reports whether raw names a cluster: a redis:// or
// rediss:// URL with an addr parameter.
func isClusterURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "redis" || u.Scheme == "rediss") && u.Query().Has("addr")
}

// newClusterClient is NewClient of a cluster URL.
func newClusterClient(raw string) (*redis.ClusterClient, error) {
	u, _ := url.Parse(raw) // isClusterURL parsed it
	if db := strings.Trim(u.Path, "/"); db != "" && db != "0" {
		return nil, errors.New("redisstore: the Redis URL names a cluster (addr=...), whose only database is 0: drop the /DB")
	}
	o, err := redis.ParseClusterURL(raw)
	if err != nil {
		return nil, errors.New("redisstore: the Redis URL is not a valid cluster URL, redis://HOST:PORT?addr=HOST2:PORT2&addr=HOST3:PORT3 (or rediss://)")
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = bounded(o.DialTimeout), bounded(o.ReadTimeout), bounded(o.WriteTimeout), bounded(o.PoolTimeout)
	if o.MaxRetries == 0 {
		o.MaxRetries = 1
	}
	o.DialerRetries = 1
	o.ContextTimeoutEnabled = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	// A dead master refuses connections, which does not make go-redis
	// reload its slot map (a MOVED does): reload it every second while in
	// use, so a failover is followed within seconds, not a minute.
	o.ClusterStateReloadInterval = clusterStateReload
	if o.TLSConfig != nil {
		o.TLSConfig.MinVersion = tls.VersionTLS12
	}
	if err := tlsFromEnv(o.TLSConfig); err != nil {
		return nil, err
	}
	return redis.NewClusterClient(o), nil
}

// clusterStateReload is how often a cluster client reloads its slot map
// while in use (go-redis's default is a minute).
const clusterStateReload = time.Second

// bounded is d, or one second when the URL left it unset.
func bounded(d time.Duration) time.Duration {
	if d == 0 {
		return time.Second
	}
	return d
}

// tlsFromEnv applies the environment's TLS settings (CAEnv, CertEnv and
// KeyEnv) to cfg, a rediss:// URL's; nil for redis://, which ignores them.
func tlsFromEnv(cfg *tls.Config) error {
	if cfg == nil {
		return nil
	}
	if err := trustCA(cfg); err != nil {
		return err
	}
	return presentCert(cfg)
}

// trustCA makes cfg (a rediss:// URL's; nil for redis://) trust only the
// CA certificates of the PEM file CAEnv names, when it is set.
func trustCA(cfg *tls.Config) error {
	file := os.Getenv(CAEnv)
	if cfg == nil || file == "" {
		return nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("redisstore: %s: %v", CAEnv, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("redisstore: %s: %s holds no PEM certificate", CAEnv, file)
	}
	cfg.RootCAs = pool
	return nil
}

// presentCert makes cfg present the client certificate of the PEM files
// CertEnv and KeyEnv name, when they are set. The files are read here, not
// with tls.LoadX509KeyPair, so that an error names the variable of the
// file that failed; no error repeats what a file holds.
func presentCert(cfg *tls.Config) error {
	certFile, keyFile := os.Getenv(CertEnv), os.Getenv(KeyEnv)
	if certFile == "" && keyFile == "" {
		return nil
	}
	if certFile == "" || keyFile == "" {
		return fmt.Errorf("redisstore: %s and %s go together: set both (the PEM files of the client certificate and of its key) or neither", CertEnv, KeyEnv)
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("redisstore: %s: %v (it names the PEM file of the client certificate)", CertEnv, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("redisstore: %s: %v (it names the PEM file of the client certificate's private key)", KeyEnv, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("redisstore: %s and %s: %v (name the PEM file of the client certificate and that of its own private key)", CertEnv, KeyEnv, err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	return nil
}

// ClientFromSettings is a server's start-up choice of store: the client of
// the Redis that flagValue names (a -redis flag), else URLEnv, or nil and
// no error when neither is set (the in-memory stores then serve this
// process alone). The URL is one server's or a cluster's (see NewClient);
// CAEnv names the CA of a rediss:// server, CertEnv and KeyEnv the client
// certificate it may require. A malformed URL, and a Redis that refuses
// the URL's credentials or the client certificate (or wants one), or whose
// TLS certificate does not verify, are an error: one line naming the
// settings, never the URL or its password. A Redis that does not answer
// yet is only logged on logger (nil: slog.Default()): the stores fail
// closed until it does. go-redis's own log lines (a failed dial, ...) go
// to logger too, at level Debug: the stores log the cause of every
// failure themselves.
func ClientFromSettings(flagValue string, logger *slog.Logger) (redis.UniversalClient, error) {
	url := flagValue
	if url == "" {
		url = os.Getenv(URLEnv)
	}
	if url == "" {
		return nil, nil
	}
	client, err := NewClient(url)
	if err != nil {
		return nil, fmt.Errorf("-redis or %s: %v", URLEnv, err)
	}
	if logger == nil {
		logger = slog.Default()
	}
	redis.SetLogger(goRedisLog{logger})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		why := refusal(err)
		if why == "" {
			why = refusal(probeTLS(client))
		}
		if why != "" {
			client.Close()
			return nil, fmt.Errorf("-redis or %s: redisstore: %s", URLEnv, why)
		}
		logger.Warn("redisstore: Redis does not answer yet: the shared stores fail until it does", "addr", addrs(client), "err", err)
	}
	logger.Info("redisstore: the shared stores are on Redis", "addr", addrs(client))
	return client, nil
}

// probeTLS completes a TLS handshake with c's server (a cluster's first
// seed) and waits up to a second for its first word, sending nothing: a
// server that refuses the client's certificate says so then (TLS 1.3
// refuses after the handshake, and a command the client wrote meanwhile
// can turn its alert into a connection reset, which reads as Redis being
// down), and one that accepts it waits for a command. It returns the
// error that came, or nil: no TLS, or nothing came.
func probeTLS(c redis.UniversalClient) error {
	var addr string
	var cfg *tls.Config
	switch c := c.(type) {
	case *redis.Client:
		addr, cfg = c.Options().Addr, c.Options().TLSConfig
	case *redis.ClusterClient:
		addr, cfg = c.Options().Addrs[0], c.Options().TLSConfig
	}
	if cfg == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := (&tls.Dialer{Config: cfg.Clone()}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(time.Second))
	_, err = conn.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return nil
	}
	return err
}

// refusal says why Redis refused this client for good (a retry will not
// help: the settings are wrong), or "" for a failure that may pass (Redis
// down, not reachable yet).
func refusal(err error) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case redis.IsAuthError(err):
		return "Redis refused the URL's user name and password (wrong password, unknown or disabled user, or none given)"
	case redis.IsPermissionError(err):
		return "the URL's Redis user may not run the commands the stores need (NOPERM)"
	case errors.As(err, &verify):
		return untrusted(verify.Err)
	case errors.As(err, &unknown):
		return untrusted(unknown)
	case errors.As(err, &host):
		return untrusted(host)
	case errors.As(err, &invalid):
		return untrusted(invalid)
	}
	return certRefusal(err)
}

// The TLS alerts (RFC 8446, 6) by which a server refuses the client's
// certificate: it sent none (certificate_required in TLS 1.3; a TLS 1.2
// server, redis-server with OpenSSL 3 for one, sends a bare
// handshake_failure), or the server does not accept the one it got
// (unknown_ca for a certificate of another CA; bad_certificate to
// certificate_unknown, 42 to 46, for the other faults of a certificate).
const (
	alertHandshakeFailure    tls.AlertError = 40
	alertBadCertificate      tls.AlertError = 42
	alertCertificateUnknown  tls.AlertError = 46
	alertUnknownCA           tls.AlertError = 48
	alertCertificateRequired tls.AlertError = 116
)

// certRefusal is the refusal of a server that wants a client certificate
// and got none, or refused the one it got, or "". A TLS 1.2 handshake
// failure is read as the former only when no certificate was presented:
// with one, it may have another cause.
func certRefusal(err error) string {
	alert, ok := remoteAlert(err)
	switch {
	case !ok:
		return ""
	case alert == alertCertificateRequired, alert == alertHandshakeFailure && os.Getenv(CertEnv) == "":
		return "the Redis server requires a client certificate (" + CertEnv + " and " + KeyEnv + " name its PEM files)"
	case alert >= alertBadCertificate && alert <= alertCertificateUnknown, alert == alertUnknownCA:
		return "the Redis server refused the client certificate (" + alert.Error() + ": " + CertEnv +
			" must name one that a CA of the server's tls-ca-cert-file signed, " + KeyEnv + " its key)"
	}
	return ""
}

// remoteAlert returns the TLS alert the server sent, if err is one.
// crypto/tls returns an alert received over TCP as a *net.OpError
// "remote error" around a value of an unexported type, whose text is that
// of the tls.AlertError of the same number: that names it without
// spelling alert texts here.
func remoteAlert(err error) (tls.AlertError, bool) {
	var alert tls.AlertError
	if errors.As(err, &alert) {
		return alert, true
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return 0, false
	}
	for a := range 256 {
		if tls.AlertError(a).Error() == op.Err.Error() {
			return tls.AlertError(a), true
		}
	}
	return 0, false
}

// untrusted is the refusal of a certificate that does not verify for
// cause, on one line.
func untrusted(cause error) string {
	return "the Redis server's TLS certificate does not verify: " + strings.Join(strings.Fields(cause.Error()), " ") +
		" (" + CAEnv + " names the PEM file of the CA to trust)"
}

// addrs names the server (or the cluster's seeds) c dials, for logs.
func addrs(c redis.UniversalClient) string {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().Addr
	case *redis.ClusterClient:
		return strings.Join(c.Options().Addrs, ",")
	}
	return ""
}

// goRedisLog sends go-redis's log lines to a slog.Logger at level Debug.
type goRedisLog struct{ l *slog.Logger }

func (g goRedisLog) Printf(ctx context.Context, format string, v ...any) {
	g.l.DebugContext(ctx, "redisstore: go-redis: "+fmt.Sprintf(format, v...))
}
