package deploy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/servertest"
	"github.com/roostproject/roost/internal/testutil"
)

// tempRoot holds files the package's tests share (the roost binary);
// TestMain removes it.
var tempRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "roost-deploy-test-")
	if err != nil {
		panic(err)
	}
	tempRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoPath returns a path under the repository root.
func repoPath(rel string) string { return filepath.Join("..", filepath.FromSlash(rel)) }

// readRepoFile reads a file under the repository root.
func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(repoPath(rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// yamlDocs decodes every document of a YAML file (documents separated by
// ---) into v's type, one value per document, with yaml.v3's strictness.
func yamlDocs[T any](t *testing.T, rel string) []T {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(readRepoFile(t, rel)))
	var docs []T
	for {
		var v T
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", rel, len(docs)+1, err)
		}
		docs = append(docs, v)
	}
}

// loadConfig builds the Config `roost serve` would run with, given no file
// and environ. An unknown ROOST_* variable only warns in roost (platforms
// set some of their own), so here a warning fails the test: in a deploy
// file it is a typo.
func loadConfig(t *testing.T, what string, environ []string) config.Config {
	t.Helper()
	cfg, err := config.Load("", environ, nil)
	if err != nil {
		t.Fatalf("%s: roost refuses its settings: %v", what, err)
	}
	for _, w := range cfg.Warnings {
		t.Errorf("%s: %s", what, w)
	}
	return cfg
}

// defaults is the configuration roost runs with when nothing is set.
func defaults() config.Config { return config.Default() }

// port returns the port of a host:port address.
func port(t *testing.T, addr string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	return p
}

// needRedis skips the test when no Redis answers at addr, or fails it when
// CI is set: CI machines must run every test.
func needRedis(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		testutil.Needs(t, "Redis at %s: %v", addr, err)
		return
	}
	c.Close()
}

// startRoost runs a roost node in this process on 127.0.0.1:0 with cfg and
// returns its base URL; the node stops when the test ends.
func startRoost(t *testing.T, cfg config.Config) string {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	_, addr := servertest.Start(t, cfg)
	return "http://" + addr
}

// get fetches url and returns the status code and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// environ returns this process's environment without ROOST_* variables,
// plus extra ("NAME=value"), so only what a test sets configures roost.
func environ(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROOST_") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
