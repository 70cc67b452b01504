package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// A child server started with ServerOptions.TLS serves wss:// and https://
// with a self-signed certificate for 127.0.0.1, which the bench and its
// workers trust (Target.CAFile) and verify like any other.

// selfSigned writes a fresh certificate for 127.0.0.1 and its key into dir.
func selfSigned(dir string) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "roost bench"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}

// tlsArgs makes a certificate in a new directory and returns the
// directory, the certificate's file and args with the flags that make roost
// serve it.
func tlsArgs(args []string) (dir, certFile string, _ []string, err error) {
	if dir, err = os.MkdirTemp("", "roost-bench-tls-"); err != nil {
		return "", "", nil, fmt.Errorf("bench: server certificate: %w", err)
	}
	certFile, keyFile, err := selfSigned(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", "", nil, fmt.Errorf("bench: server certificate: %w", err)
	}
	return dir, certFile, append(args, "--tls-cert", certFile, "--tls-key", keyFile), nil
}

// clientTLS returns a TLS configuration that trusts the certificates in
// caFile, or nil (the system's roots) when caFile is empty.
func clientTLS(caFile string) (*tls.Config, error) {
	if caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("bench: no certificate in %s", caFile)
	}
	return &tls.Config{RootCAs: pool}, nil
}

// httpTransport returns an HTTP transport that trusts t's CAFile.
func (t Target) httpTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig, _ = clientTLS(t.CAFile)
	return tr
}
