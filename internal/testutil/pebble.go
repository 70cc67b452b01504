package testutil

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// pebbleStart bounds how long Pebble and its DNS server may take to listen.
const pebbleStart = 30 * time.Second

// Pebble is a private ACME server (Let's Encrypt's Pebble) on loopback,
// with a DNS server (pebble-challtestsrv) that resolves every name to
// 127.0.0.1, so that it validates challenges against this machine only.
type Pebble struct {
	DirectoryURL string // the ACME directory, over HTTPS
	CAFile       string // PEM certificate of the directory's HTTPS

	dir, keyFile string
	https        TestCert
	api, mgmt    int
	log          SyncBuffer
}

// NewPebble prepares a Pebble for the test: its directory URL and the
// certificate of its HTTPS are known before Start.
func NewPebble(t testing.TB) *Pebble {
	t.Helper()
	pebbleBinary(t, "pebble") // stop here, before the test starts what Start would find
	p := &Pebble{dir: t.TempDir(), api: freePort(t), mgmt: freePort(t)}
	p.CAFile, p.keyFile = filepath.Join(p.dir, "pebble-cert.pem"), filepath.Join(p.dir, "pebble-key.pem")
	p.https = NewTestCert(t, 1, time.Now().Add(time.Hour))
	p.https.Write(t, p.CAFile, p.keyFile)
	p.DirectoryURL = "https://127.0.0.1:" + strconv.Itoa(p.api) + "/dir"
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pebble:\n%s", p.log.String())
		}
	})
	return p
}

// Start runs Pebble until the test ends, validating HTTP-01 on
// 127.0.0.1:httpPort and TLS-ALPN-01 on 127.0.0.1:tlsPort. The binaries
// come from $ROOST_PEBBLE_DIR or the module's .tools (make pebble).
func (p *Pebble) Start(t testing.TB, httpPort, tlsPort int) {
	t.Helper()
	dns, dnsMgmt := freePort(t), freePort(t)
	run(t, &p.log, nil, pebbleBinary(t, "pebble-challtestsrv"), "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
		"-dnsserver", "127.0.0.1:"+strconv.Itoa(dns), "-management", "127.0.0.1:"+strconv.Itoa(dnsMgmt),
		"-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", "")
	Eventually(t, pebbleStart, "pebble-challtestsrv listening on "+strconv.Itoa(dnsMgmt), func() bool { return listening(dnsMgmt) })
	conf := filepath.Join(p.dir, "pebble.json")
	p.writeConfig(t, conf, httpPort, tlsPort)
	run(t, &p.log, []string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0"}, pebbleBinary(t, "pebble"),
		"-config", conf, "-dnsserver", "127.0.0.1:"+strconv.Itoa(dns))
	Eventually(t, pebbleStart, "Pebble listening on "+strconv.Itoa(p.api), func() bool { return listening(p.api) })
}

// Roots returns a pool of the root certificate Pebble issues under.
func (p *Pebble) Roots(t testing.TB) *x509.CertPool {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.https.Pool()}}}
	resp, err := hc.Get("https://127.0.0.1:" + strconv.Itoa(p.mgmt) + "/roots/0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	pem, _ := io.ReadAll(resp.Body)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("Pebble's root: no certificate in %q", pem)
	}
	return pool
}

// listening reports whether something accepts on the loopback port.
func listening(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// writeConfig writes Pebble's configuration file.
func (p *Pebble) writeConfig(t testing.TB, path string, httpPort, tlsPort int) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"pebble": map[string]any{
		"listenAddress": "127.0.0.1:" + strconv.Itoa(p.api), "managementListenAddress": "127.0.0.1:" + strconv.Itoa(p.mgmt),
		"certificate": p.CAFile, "privateKey": p.keyFile, "httpPort": httpPort, "tlsPort": tlsPort,
		"ocspResponderURL": "", "externalAccountBindingRequired": false,
	}})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// run starts bin with env added to this process's, and kills it when the
// test ends.
func run(t testing.TB, log *SyncBuffer, env []string, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// pebbleBinary returns the path of a Pebble binary, or stops the test
// (Needs).
func pebbleBinary(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("ROOST_PEBBLE_DIR")
	if dir == "" {
		dir = filepath.Join(moduleRoot(), ".tools")
	}
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err != nil {
		Needs(t, "no %s (%v): `make pebble` builds it into .tools, or set ROOST_PEBBLE_DIR", name, err)
	}
	return bin
}

// moduleRoot returns the nearest directory above the working one that
// holds go.mod, or "".
func moduleRoot() string {
	dir, _ := os.Getwd()
	for dir != filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return ""
}
