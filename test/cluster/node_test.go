package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// The app every node serves; client events on, so presence tests can use them.
const (
	appID     = "1"
	appKey    = "key-1"
	appSecret = "secret-1"
)

// buildRoost returns the roost binary under test (testutil.RoostBinary).
func buildRoost(t *testing.T) string { return testutil.RoostBinary(t) }

// node is one `roost serve` process of the cluster under test.
type node struct {
	*testutil.Roost
	t    *testing.T
	name string
	url  string // http://127.0.0.1:port
	rest testutil.API
}

// startNode runs roost with one app, joined to the backend that r reaches
// under prefix, and waits until it serves. It is killed when the test ends.
func startNode(t *testing.T, bin, name string, r testutil.Reach, prefix string) *node {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "roost.yaml")
	yaml := fmt.Sprintf("apps:\n  - { id: %q, key: %q, secret: %q, client_events: true }\n", appID, appKey, appSecret)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := testutil.StartRoost(t, bin, name, append([]string{"--config", cfg}, r.NodeFlags(prefix)...)...)
	return &node{Roost: p, t: t, name: name, url: p.URL,
		rest: testutil.API{ID: appID, Key: appKey, Secret: appSecret, HTTP: &http.Client{Timeout: 10 * time.Second}}}
}

// stop kills the node and reaps it.
func (n *node) stop() { n.Kill() }

// logs returns the node's stderr, labelled, for failure messages.
func (n *node) logs() string { return n.Logs() }

// wsURL is the Pusher WebSocket endpoint of the node's app.
func (n *node) wsURL() string {
	return "ws" + strings.TrimPrefix(n.url, "http") + "/app/" + appKey + "?protocol=7&client=go&version=8.6.0&flash=false"
}

// ready returns the status and body of GET /ready.
func (n *node) ready() (int, string) {
	res, err := n.rest.HTTP.Get(n.url + "/ready")
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, strings.TrimSpace(string(body))
}

// api sends a signed HTTP API request (Pusher "HTTP API reference") for the
// node's app and returns the status and body. query may be nil.
func (n *node) api(method, path string, query url.Values, body []byte) (int, string) {
	n.t.Helper()
	status, out, err := n.request(method, path, query, body)
	if err != nil {
		n.t.Fatalf("%s %s on %s: %v", method, path, n.name, err)
	}
	return status, out
}

// request is api for any goroutine: it returns what fails instead of
// failing the test.
func (n *node) request(method, path string, query url.Values, body []byte) (int, string, error) {
	return n.rest.Do(n.url, method, path, query, body)
}

// trigger publishes event on channel through the node's HTTP API.
func (n *node) trigger(channel, event, data string) {
	n.t.Helper()
	if err := n.publish(channel, event, data); err != nil {
		n.t.Fatal(err)
	}
}

// publish is trigger for any goroutine: it returns what fails.
func (n *node) publish(channel, event, data string) error {
	body, _ := json.Marshal(map[string]string{"name": event, "channel": channel, "data": data})
	status, out, err := n.request(http.MethodPost, "/events", nil, body)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d %s", status, out)
	}
	if err != nil {
		return fmt.Errorf("trigger %s on %s: %w", event, n.name, err)
	}
	return nil
}
