package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StartTLS starts a redis-server that speaks TLS only (--port 0
// --tls-port P, --tls-auth-clients no: no client certificate), with a
// certificate for 127.0.0.1 (an IP SAN, no DNS name) signed by a CA made
// for this test; Server.CAFile is that CA's PEM file and Server.URL is
// rediss://127.0.0.1:P/0. Stopped when t ends.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	s := newServer(t)
	s.URL = "rediss://" + s.Addr + "/0"
	ca, caKey := newCA(t, "redistest CA")
	s.CAFile = writePEM(t, s.dir, "ca.pem", "CERTIFICATE", ca.Raw)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "redistest server"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := writePEM(t, s.dir, "server.pem", "CERTIFICATE", der)
	keyFile := writePEM(t, s.dir, "server-key.pem", "PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	s.tls = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	s.extra = []string{"--tls-cert-file", cert, "--tls-key-file", keyFile, "--tls-ca-cert-file", s.CAFile, "--tls-auth-clients", "no"}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// OtherCAFile writes the PEM file of a CA made now, which signed no
// server's certificate: a client that trusts only it trusts no test
// server.
func OtherCAFile(t testing.TB) string {
	t.Helper()
	ca, _ := newCA(t, "redistest other CA")
	return writePEM(t, t.TempDir(), "other-ca.pem", "CERTIFICATE", ca.Raw)
}

// newCA makes a self-signed CA valid from an hour ago for a day.
func newCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

// writePEM writes der as one PEM block of type typ to dir/name.
func writePEM(t testing.TB, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
