package certs

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// pairFiles returns the paths of a pair in a fresh directory.
func pairFiles(t *testing.T) (certFile, keyFile string) {
	dir := t.TempDir()
	return filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
}

// openWith writes c and opens the pair, logging to the returned buffer.
func openWith(t *testing.T, c testutil.TestCert) (*Files, *testutil.SyncBuffer, string, string) {
	t.Helper()
	certFile, keyFile := pairFiles(t)
	c.Write(t, certFile, keyFile)
	log := &testutil.SyncBuffer{}
	f, err := OpenFiles(certFile, keyFile, slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return f, log, certFile, keyFile
}

// serial returns the serial number of the certificate f serves.
func serial(t *testing.T, f *Files) int64 {
	t.Helper()
	c, err := f.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Leaf.SerialNumber.Int64()
}

func later() time.Time { return time.Now().Add(24 * time.Hour) }

// TestReloadServesTheNewPair: after Reload new handshakes get the pair now
// on disk, and the log says which certificate is served.
func TestReloadServesTheNewPair(t *testing.T) {
	f, log, certFile, keyFile := openWith(t, testutil.NewTestCert(t, 1, later()))
	testutil.NewTestCert(t, 2, later()).Write(t, certFile, keyFile)
	if err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := serial(t, f); got != 2 {
		t.Fatalf("serving serial %d after Reload, want 2", got)
	}
	if !strings.Contains(log.String(), `msg="tls: serving certificate" subject="CN=roost test"`) || !strings.Contains(log.String(), "serial=2 ") {
		t.Errorf("the log does not say which certificate is served:\n%s", log)
	}
}

// TestBadPairIsRefused: a pair that cannot be served is refused with an
// error naming the setting, logged, and the pair served before stays.
func TestBadPairIsRefused(t *testing.T) {
	a, b := testutil.NewTestCert(t, 1, later()), testutil.NewTestCert(t, 2, later())
	expired := testutil.NewTestCert(t, 3, time.Now().Add(-time.Minute))
	tests := []struct {
		name      string
		cert, key []byte // nil removes the file
		want      string
	}{
		{"mismatched key", b.CertPEM, a.KeyPEM, "tls.cert_file and tls.key_file: tls: private key does not match public key"},
		{"no certificate file", nil, b.KeyPEM, "tls.cert_file: open "},
		{"no key file", b.CertPEM, nil, "tls.key_file: open "},
		{"not PEM", []byte("hello"), b.KeyPEM, "tls.cert_file and tls.key_file: tls: failed to find any PEM data in certificate input"},
		{"expired", expired.CertPEM, expired.KeyPEM, "tls.cert_file: the certificate expired at "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, log, certFile, keyFile := openWith(t, a)
			place(t, certFile, tt.cert)
			place(t, keyFile, tt.key)
			err := f.Reload()
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Reload: %v, want %q", err, tt.want)
			}
			if got := serial(t, f); got != 1 {
				t.Fatalf("serving serial %d after a refused pair, want 1 kept", got)
			}
			if !strings.Contains(log.String(), `level=ERROR msg="tls: certificate refused, the one served before stays"`) {
				t.Errorf("the refusal is not logged:\n%s", log)
			}
		})
	}
}

// place writes data to path, or removes path when data is nil.
func place(t *testing.T, path string, data []byte) {
	t.Helper()
	if data == nil {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	testutil.WriteFileAtomic(t, path, data)
}

// TestOpenRefusesABadPair: a node does not start with a pair it cannot
// serve.
func TestOpenRefusesABadPair(t *testing.T) {
	certFile, keyFile := pairFiles(t)
	c := testutil.NewTestCert(t, 1, time.Now().Add(-time.Second))
	c.Write(t, certFile, keyFile)
	_, err := OpenFiles(certFile, keyFile, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("OpenFiles of an expired certificate: %v, want refused", err)
	}
}

// TestWatchServesAChangedPair: Watch serves a pair written over the files
// at its next check, and logs a changed bad pair once, however many checks
// see it.
func TestWatchServesAChangedPair(t *testing.T) {
	a, b, c := testutil.NewTestCert(t, 1, later()), testutil.NewTestCert(t, 2, later()), testutil.NewTestCert(t, 3, later())
	synctest.Test(t, func(t *testing.T) {
		f, log, certFile, keyFile := openWith(t, a)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const every = 10 * time.Second
		go f.Watch(ctx, every)
		b.Write(t, certFile, keyFile)
		time.Sleep(every - time.Millisecond)
		synctest.Wait()
		if got := serial(t, f); got != 1 {
			t.Fatalf("serving serial %d before the check, want 1", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := serial(t, f); got != 2 {
			t.Fatalf("serving serial %d after a check, want 2", got)
		}
		place(t, keyFile, c.KeyPEM) // a certificate whose key is not there yet
		time.Sleep(5 * every)
		synctest.Wait()
		if got, n := serial(t, f), strings.Count(log.String(), "certificate refused"); got != 2 || n != 1 {
			t.Fatalf("serving serial %d with a mismatched pair on disk, refusal logged %d times: want 2 kept, logged once", got, n)
		}
		place(t, certFile, c.CertPEM)
		time.Sleep(every)
		synctest.Wait()
		if got := serial(t, f); got != 3 {
			t.Fatalf("serving serial %d once the pair is whole, want 3", got)
		}
	})
}
