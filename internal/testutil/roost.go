package testutil

import (
	"bufio"
	"bytes"
	"context"
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
)

// roostStart bounds how long a roost process may take to print its
// "serving on" line.
const roostStart = 20 * time.Second

// servingRE finds the URL in the line roost serve prints once it listens:
// with --addr 127.0.0.1:0 that line is the only way to learn the port the
// kernel gave it, and no other process can have taken it.
var servingRE = regexp.MustCompile(`serving on (http://[^\s]+)`)

// RoostBinary returns the roost binary under test: $ROOST_BIN if set (as in
// the e2e suite, so `make` can build once), else ./cmd/roost built into a
// temporary directory; the Go build cache makes every build after the first
// one cheap.
func RoostBinary(t testing.TB) string {
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

// Roost is one `roost serve` process on 127.0.0.1:0. Kill ends it as a
// crash would; Start runs it again with the same arguments, on a new port.
type Roost struct {
	// Name names the process in failure messages.
	Name string
	// URL is http://127.0.0.1:port, read from the process's output.
	URL string

	t      testing.TB
	bin    string
	args   []string
	cmd    *exec.Cmd
	stderr SyncBuffer
}

// StartRoost runs bin serve --addr 127.0.0.1:0 with args and waits until it
// serves. It is killed when the test ends.
func StartRoost(t testing.TB, bin, name string, args ...string) *Roost {
	t.Helper()
	r := &Roost{Name: name, t: t, bin: bin, args: append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)}
	r.Start()
	t.Cleanup(r.Kill)
	return r
}

// Start runs the process (again) and waits for its "serving on" line.
func (r *Roost) Start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, r.args...)
	r.cmd.Env = withoutRoostVars(os.Environ())
	r.cmd.Stderr = &r.stderr
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("starting %s: %v", r.Name, err)
	}
	r.URL = r.awaitServing(stdout)
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

// awaitServing reads stdout until the "serving on" line and returns its URL.
func (r *Roost) awaitServing(stdout io.Reader) string {
	r.t.Helper()
	if u, ok := ServingOn(stdout); ok {
		return u
	}
	r.t.Fatalf("%s printed no \"serving on\" line\n%s", r.Name, r.Logs())
	return ""
}

// ServingOn reads a roost process's stdout until its "serving on" line and
// returns the base URL in it, or false once the process has ended or
// roostStart has passed without one; the rest of stdout is drained in the
// background, so the process never blocks on it.
func ServingOn(stdout io.Reader) (string, bool) {
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
		return u, ok
	case <-time.After(roostStart):
		return "", false
	}
}

// Kill sends SIGKILL and reaps the process; a killed process stays so.
func (r *Roost) Kill() {
	if r.cmd != nil && r.cmd.ProcessState == nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
}

// Logs returns the process's stderr, labelled, for failure messages.
func (r *Roost) Logs() string {
	return fmt.Sprintf("--- %s %s stderr ---\n%s", r.Name, r.URL, r.stderr.String())
}

// API is a signed client of one app's HTTP API (Pusher "HTTP API
// reference"), for any goroutine.
type API struct {
	ID, Key, Secret string
	HTTP            *http.Client
}

// Do sends a signed request for path under /apps/{id} to base (a node's
// URL) and returns the status and body. query may be nil.
func (a API) Do(base, method, path string, query url.Values, body []byte) (int, string, error) {
	full := "/apps/" + a.ID + path
	q := auth.SignRequest(method, full, query, body, a.Key, a.Secret, time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+full+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := a.HTTP.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out), nil
}
