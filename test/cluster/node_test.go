package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/testutil"
)

// The app every node serves; client events on, so presence tests can use them.
const (
	appID     = "1"
	appKey    = "key-1"
	appSecret = "secret-1"
)

// nodeStart bounds how long a node may take to print its "serving on" line.
const nodeStart = 20 * time.Second

var servingRE = regexp.MustCompile(`serving on (http://[^\s]+)`)

// buildRoost returns the roost binary under test: $ROOST_BIN if set (as in
// the e2e suite, so `make` can build once), else ./cmd/roost built into a
// temporary directory; the Go build cache makes every build after the first
// one cheap.
func buildRoost(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("ROOST_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "roost")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/roostproject/roost/cmd/roost")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/roost: %v\n%s", err, out)
	}
	return bin
}

// node is one `roost serve` process of the cluster under test.
type node struct {
	t    *testing.T
	name string
	url  string // http://127.0.0.1:port
	cmd  *exec.Cmd
	http *http.Client

	stderr testutil.SyncBuffer
}

// startNode runs roost with one app, joined to redisURL under prefix, and
// waits until it serves. It is killed when the test ends.
func startNode(t *testing.T, bin, name, redisURL, prefix string) *node {
	t.Helper()
	return startNodeOn(t, bin, name, "--redis-url", redisURL, "--redis-prefix", prefix)
}

// startNodeOn runs roost with one app, joined to a cluster by the backend's
// flags (such as testutil.NATSFlags), and waits until it serves. It is
// killed when the test ends.
func startNodeOn(t *testing.T, bin, name string, backend ...string) *node {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "roost.yaml")
	yaml := fmt.Sprintf("apps:\n  - { id: %q, key: %q, secret: %q, client_events: true }\n", appID, appKey, appSecret)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	n := &node{t: t, name: name, http: &http.Client{Timeout: 10 * time.Second}}
	n.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--config", cfg}, backend...)...)
	n.cmd.Env = withoutRoostVars(os.Environ())
	n.cmd.Stderr = &n.stderr
	stdout, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(n.stop)
	n.url = n.awaitServing(stdout)
	return n
}

// withoutRoostVars drops ROOST_* variables: roost reads them as settings,
// and only the flags and the config file may decide how a node behaves.
func withoutRoostVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ROOST_") {
			out = append(out, kv)
		}
	}
	return out
}

// awaitServing reads stdout until the "serving on" line and returns its URL;
// the rest of stdout is drained so the node never blocks on it.
func (n *node) awaitServing(stdout io.Reader) string {
	n.t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if ok {
			return u
		}
	case <-time.After(nodeStart):
	}
	n.t.Fatalf("%s printed no \"serving on\" line\n%s", n.name, n.logs())
	return ""
}

// stop kills the node and reaps it.
func (n *node) stop() {
	n.cmd.Process.Kill()
	n.cmd.Wait()
}

// logs returns the node's stderr, labelled, for failure messages.
func (n *node) logs() string {
	return fmt.Sprintf("--- %s %s stderr ---\n%s", n.name, n.url, n.stderr.String())
}

// wsURL is the Pusher WebSocket endpoint of the node's app.
func (n *node) wsURL() string {
	return "ws" + strings.TrimPrefix(n.url, "http") + "/app/" + appKey + "?protocol=7&client=go&version=8.6.0&flash=false"
}

// ready returns the status and body of GET /ready.
func (n *node) ready() (int, string) {
	res, err := n.http.Get(n.url + "/ready")
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
	full := "/apps/" + appID + path
	q := auth.SignRequest(method, full, query, body, appKey, appSecret, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, n.url+full+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := n.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out), nil
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
