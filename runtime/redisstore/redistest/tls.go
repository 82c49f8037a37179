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
	return startTLS(t, false)
}

// StartMutualTLS is StartTLS with --tls-auth-clients yes (redis-server's
// default once TLS is on): the server refuses a client that presents no
// certificate signed by its CA. Server.ClientCertFile and
// Server.ClientKeyFile are the PEM files of a client certificate that CA
// signed, and of its key.
func StartMutualTLS(t testing.TB) *Server {
	t.Helper()
	return startTLS(t, true)
}

func startTLS(t testing.TB, authClients bool) *Server {
	t.Helper()
	s := newServer(t)
	s.useTLS(newTLSFiles(t, s.dir), authClients)
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// tlsFiles are the PEM files of a CA made for a test, of a certificate it
// signed for 127.0.0.1 (a server's, also good as a client's: cluster nodes
// and replicas present it to each other), and of a client certificate it
// signed.
type tlsFiles struct {
	ca, cert, key, clientCert, clientKey string
	client                               *tls.Config // trusts ca, presents clientCert
}

// newTLSFiles makes a CA and the certificates it signs, in dir.
func newTLSFiles(t testing.TB, dir string) *tlsFiles {
	t.Helper()
	ca, caKey := newCA(t, "redistest CA")
	f := &tlsFiles{ca: writePEM(t, dir, "ca.pem", "CERTIFICATE", ca.Raw)}
	f.cert, f.key = issue(t, ca, caKey, dir, "server", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "redistest server"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	})
	f.clientCert, f.clientKey = issue(t, ca, caKey, dir, "client", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "redistest client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	pair, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	f.client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	return f
}

// useTLS makes s, not started yet, speak TLS only with f's certificate;
// authClients is --tls-auth-clients. Do presents f's client certificate.
func (s *Server) useTLS(f *tlsFiles, authClients bool) {
	s.URL = "rediss://" + s.Addr + "/0"
	s.CAFile = f.ca
	auth := "no"
	if authClients {
		auth = "yes"
		s.ClientCertFile, s.ClientKeyFile = f.clientCert, f.clientKey
	}
	s.tls = f.client.Clone()
	s.extra = append(s.extra, "--tls-cert-file", f.cert, "--tls-key-file", f.key, "--tls-ca-cert-file", f.ca, "--tls-auth-clients", auth)
}

// OtherCAFile writes the PEM file of a CA made now, which signed no
// server's certificate: a client that trusts only it trusts no test
// server.
func OtherCAFile(t testing.TB) string {
	t.Helper()
	ca, _ := newCA(t, "redistest other CA")
	return writePEM(t, t.TempDir(), "other-ca.pem", "CERTIFICATE", ca.Raw)
}

// OtherClientCert writes the PEM files of a client certificate, and of its
// key, signed by a CA made now: no test server trusts it.
func OtherClientCert(t testing.TB) (certFile, keyFile string) {
	t.Helper()
	ca, caKey := newCA(t, "redistest other CA")
	return issue(t, ca, caKey, t.TempDir(), "other-client", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "redistest other client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// issue signs tmpl (its names and uses; the rest is filled in here) with
// ca for a new key, valid from an hour ago for a day, and writes the
// certificate and the key to dir/NAME.pem and dir/NAME-key.pem.
func issue(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey, dir, name string, tmpl *x509.Certificate) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writePEM(t, dir, name+"-key.pem", "PRIVATE KEY", keyDER)
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
