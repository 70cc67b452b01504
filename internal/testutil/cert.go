package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
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

// TestCert is a self-signed server certificate for 127.0.0.1 and
// localhost, with its key, as PEM.
type TestCert struct {
	CertPEM, KeyPEM []byte
	Leaf            *x509.Certificate
}

// NewTestCert makes a certificate with the given serial number, valid from
// an hour before now until notAfter.
func NewTestCert(t testing.TB, serial int64, notAfter time.Time) TestCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "roost test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	leaf, _ := x509.ParseCertificate(der)
	return TestCert{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), Leaf: leaf,
	}
}

// Write replaces certFile and keyFile with c's, each by a rename, so that
// a reader sees a file whole or not at all.
func (c TestCert) Write(t testing.TB, certFile, keyFile string) {
	t.Helper()
	WriteFileAtomic(t, certFile, c.CertPEM)
	WriteFileAtomic(t, keyFile, c.KeyPEM)
}

// Pool returns a pool that trusts c.
func (c TestCert) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.Leaf)
	return p
}

// WriteFileAtomic replaces path with data by a rename.
func WriteFileAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
