package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
)

// reloadClients is how many connections stay open across the reloads.
const reloadClients = 1000

// The configurations TestReloadUnderLoad gives the node: before is what it
// starts with; after adds an app, changes one, removes one, switches one
// off and changes a node-wide limit; broken has an error on line 3.
const (
	reloadBefore = `addr: 127.0.0.1:0
apps:
  - {id: kept, key: kept-key, secret: kept-secret}
  - {id: changed, key: changed-key, secret: old-secret}
  - {id: removed, key: removed-key, secret: removed-secret}
  - {id: disabled, key: disabled-key, secret: disabled-secret}
`
	reloadAfter = `addr: 127.0.0.1:0
limits: {max_connections: 5000}
apps:
  - {id: kept, key: kept-key, secret: kept-secret}
  - {id: changed, key: changed-key, secret: new-secret, client_events: true}
  - {id: disabled, key: disabled-key, secret: disabled-secret, enabled: false}
  - {id: added, key: added-key, secret: added-secret}
`
	reloadBroken = `addr: 127.0.0.1:0
limits:
  max_connections: lots
apps:
  - {id: other, key: other-key, secret: other-secret}
`
)

// TestReloadUnderLoad runs `roost serve` as a process with 1,000
// connections spread over four apps and sends it SIGHUP twice: once with
// apps added, changed, removed and switched off, where only the connections
// of the removed and the disabled app are closed (with 4003) and every
// other one still answers a ping, and once with a file that has an error,
// which is refused with the field and line logged and the running
// configuration kept.
func TestReloadUnderLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "roost.yaml")
	writeFile(t, file, reloadBefore)
	node := startNode(t, file)
	clients := map[string][]*testutil.Client{}
	for i := range reloadClients {
		app := []string{"kept", "changed", "removed", "disabled"}[i%4]
		clients[app] = append(clients[app], testutil.Connect(t, node.ws(app+"-key"), nil))
	}
	first := node.metric(t, "roost_config_last_reload_success_timestamp_seconds")

	writeFile(t, file, reloadAfter)
	node.hangup(t, "config reloaded")
	for _, app := range []string{"removed", "disabled"} {
		for _, c := range clients[app] {
			if code := c.CloseCode(); int(code) != int(pusher.AppDisabled) {
				t.Fatalf("a connection of the %s app closed with %d, want %d", app, code, pusher.AppDisabled)
			}
		}
	}
	pingAll(t, clients["kept"], clients["changed"])
	if !strings.Contains(node.logs(), "setting=limits.max_connections") {
		t.Errorf("the changed node-wide limit is not named as needing a restart:\n%s", node.logs())
	}
	checkAfterReload(t, node)
	if got := node.metric(t, "roost_config_last_reload_success_timestamp_seconds"); got == first {
		t.Errorf("the last reload's time is still the start's, %s", got)
	}

	writeFile(t, file, reloadBroken)
	node.hangup(t, "config reload refused")
	if !strings.Contains(node.logs(), "limits.max_connections ("+file+":3)") {
		t.Errorf("the refusal does not name the field and line:\n%s", node.logs())
	}
	if got := node.metric(t, "roost_config_last_reload_successful"); got != "0" {
		t.Errorf("roost_config_last_reload_successful = %s after a refused file, want 0", got)
	}
	pingAll(t, clients["kept"], clients["changed"])
	testutil.Connect(t, node.ws("added-key"), nil).Ping()
	refusedWith(t, node.ws("other-key"), pusher.AppNotFound)
}

// checkAfterReload checks what new connections find after the first
// reload: the added app served, the changed one with its new secret, the
// removed one unknown and the disabled one refused.
func checkAfterReload(t *testing.T, node *childNode) {
	t.Helper()
	testutil.Connect(t, node.ws("added-key"), nil).Ping()
	c := testutil.Connect(t, node.ws("changed-key"), nil)
	c.SubscribeWith("private-x", c.ChannelAuth("changed-key", "new-secret", "private-x", ""), "")
	refusedWith(t, node.ws("removed-key"), pusher.AppNotFound)
	refusedWith(t, node.ws("disabled-key"), pusher.AppDisabled)
	if got := node.metric(t, "roost_config_last_reload_successful"); got != "1" {
		t.Errorf("roost_config_last_reload_successful = %s after a reload, want 1", got)
	}
}

// refusedWith opens a connection to url and checks it is closed with code.
func refusedWith(t *testing.T, url string, code pusher.Code) {
	t.Helper()
	if got := testutil.Dial(t, url, nil).CloseCode(); int(got) != int(code) {
		t.Errorf("%s: closed with %d, want %d", url, got, code)
	}
}

// pingAll pings every client of every group: each must still be open.
func pingAll(t *testing.T, groups ...[]*testutil.Client) {
	t.Helper()
	for _, g := range groups {
		for _, c := range g {
			c.Ping()
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// childNode is `roost serve` running as a child process.
type childNode struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  strings.Builder
}

// startNode runs `roost serve --config file` (this test binary, re-executed
// as roost by TestMain) and waits for its banner.
func startNode(t *testing.T, file string) *childNode {
	t.Helper()
	n := &childNode{cmd: exec.Command(os.Args[0], "serve", "--config", file)}
	n.cmd.Env = withoutRoostVars()
	stdout, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	n.cmd.Stderr = n
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.cmd.Process.Signal(syscall.SIGTERM); n.cmd.Wait() })
	n.addr = bannerAddr(t, stdout)
	return n
}

var servingOn = regexp.MustCompile(`serving on http://(\S+)`)

// bannerAddr reads the child's stdout until its banner and returns the
// address it serves; the rest of stdout is drained.
func bannerAddr(t *testing.T, stdout io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if m := servingOn.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, stdout)
			return m[1]
		}
	}
	t.Fatal("roost serve exited before its banner")
	return ""
}

// withoutRoostVars is this process's environment without ROOST_* variables.
func withoutRoostVars() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROOST_") {
			env = append(env, kv)
		}
	}
	return env
}

// Write collects the child's log (io.Writer).
func (n *childNode) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.log.Write(p)
}

func (n *childNode) logs() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.log.String()
}

// hangup sends SIGHUP and waits for one more log line containing want.
func (n *childNode) hangup(t *testing.T, want string) {
	t.Helper()
	before := strings.Count(n.logs(), want)
	if err := n.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "a log line with "+want, func() bool {
		return strings.Count(n.logs(), want) > before
	})
}

func (n *childNode) ws(key string) string {
	return "ws://" + n.addr + "/app/" + key + "?protocol=7&client=js&version=8.4.0"
}

// metric returns the value of an unlabelled series on /metrics.
func (n *childNode) metric(t *testing.T, name string) string {
	t.Helper()
	resp, err := http.Get("http://" + n.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("/metrics has no %s", name)
	}
	return string(m[1])
}
