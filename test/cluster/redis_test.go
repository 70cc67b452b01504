package cluster

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// redisStart bounds how long a redis-server may take to answer PING.
const redisStart = 10 * time.Second

// redisServer is a private redis-server on a free loopback port, without
// persistence, so that a restart comes back empty (the worst case for the
// cluster, which must write its state again).
type redisServer struct {
	t    *testing.T
	bin  string
	port int

	mu  sync.Mutex // guards cmd and log
	cmd *exec.Cmd
	log bytes.Buffer
}

// startRedis starts redis-server, or skips (fails in CI) without one.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testutil.Needs(t, "no redis-server binary on PATH (%v); the cluster failure tests need it", err)
	}
	r := &redisServer{t: t, bin: bin, port: freePort(t)}
	r.start()
	t.Cleanup(r.kill)
	return r
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// URL is the redis:// URL of the server.
func (r *redisServer) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d", r.port) }

// start runs redis-server on r.port and waits until it answers PING.
func (r *redisServer) start() {
	r.t.Helper()
	cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	out := &lockedWriter{mu: &r.mu, w: &r.log}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
	testutil.Eventually(r.t, redisStart, "redis-server answering PING on "+r.URL(), r.pings)
}

// kill stops redis-server with SIGKILL, as a crash would, and reaps it.
func (r *redisServer) kill() {
	r.mu.Lock()
	cmd := r.cmd
	r.cmd = nil
	r.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// pings reports whether the server answers PING with PONG.
func (r *redisServer) pings() bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// output returns what redis-server printed, for failure messages.
func (r *redisServer) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// lockedWriter serialises writes from a child's stdout and stderr.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
