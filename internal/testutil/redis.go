package testutil

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// redisStart bounds how long a redis-server may take to answer PING, and
// to exit after SHUTDOWN.
const redisStart = 10 * time.Second

// Redis is a private redis-server on a free loopback port, for tests that
// make Redis fail under roost: kill it, pause it, make it sleep, restart it
// with or without its data. It saves nothing on its own; SHUTDOWN SAVE
// writes its data to a directory of its own, which the next Start loads.
type Redis struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	bus  int      // a cluster node's bus port; 0 for a server outside a cluster
	conf string   // a config file read first, if not ""
	args []string // more redis-server arguments: a cluster node's, a replica's

	mu     sync.Mutex // guards cmd and exited
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited and been reaped
	log    SyncBuffer
}

// StartRedis starts a private redis-server, or stops the test (Needs)
// when there is no redis-server binary. It is killed when the test ends.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	return startRedis(t, redisBinary(t))
}

// startRedis starts a private redis-server with more arguments.
func startRedis(t testing.TB, bin string, args ...string) *Redis {
	t.Helper()
	return startRedisConf(t, bin, "", false, args...)
}

// startRedisConf starts a private redis-server that reads a config file
// first (a sentinel's, which the sentinel rewrites), if conf is not "",
// with a cluster bus port of its own if bus is set.
func startRedisConf(t testing.TB, bin, conf string, bus bool, args ...string) *Redis {
	t.Helper()
	r := &Redis{t: t, bin: bin, dir: t.TempDir(), conf: conf, args: args}
	r.claimPorts(bus)
	t.Cleanup(r.Kill)
	return r
}

// portAttempts bounds how often claimPorts tries new ports.
const portAttempts = 20

// claimPorts starts the server on ports that were free a moment ago. A
// redis-server cannot be told to pick its own port and report it, so
// another process may take a port between the check and the bind: the
// server then exits saying so, and claimPorts starts it on new ports. It
// never mistakes another process on the port for its own server, because
// it waits for the server's own word that it listens.
func (r *Redis) claimPorts(bus bool) {
	r.t.Helper()
	for range portAttempts {
		r.port = freePort(r.t)
		if bus {
			r.bus = freePort(r.t)
		}
		if err := r.launch(); !errors.Is(err, errPortTaken) {
			return
		}
	}
	r.t.Fatalf("redis-server found no free port in %d attempts\n%s", portAttempts, r.Output())
}

// redisBinary returns the path of redis-server, or stops the test (Needs).
func redisBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Needs(t, "no redis-server binary on PATH (%v)", err)
	}
	return bin
}

// freePort returns a loopback port that was free a moment ago: only a
// candidate, which the server's own bind confirms (see claimPorts).
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// URL is the redis:// URL of the server.
func (r *Redis) URL() string { return "redis://" + r.addr() }

// Addr is the server's host:port.
func (r *Redis) Addr() string { return r.addr() }

func (r *Redis) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// Start runs redis-server on its port, loading what SHUTDOWN SAVE last
// wrote, and waits until it answers PING. DEBUG is allowed from loopback.
//
// A restart must have the same ports, which an outgoing connection of any
// process may hold for a moment as its local port (they come from the
// same ephemeral range): Start tries again while the port is taken, for
// up to redisStart.
func (r *Redis) Start() {
	r.t.Helper()
	var err error
	Poll(redisStart, func() bool {
		err = r.launch()
		return !errors.Is(err, errPortTaken)
	})
	if err != nil {
		r.t.Fatalf("starting redis-server on %s: %v\n%s", r.addr(), err, r.Output())
	}
}

// errPortTaken reports a server that exited because another process holds
// its port.
var errPortTaken = errors.New("port taken by another process")

// redisListening is what redis-server logs once it has bound its ports, in
// every mode (plain, cluster, sentinel).
const redisListening = "Running mode="

// launch starts the process and waits until it says it listens and then
// answers PING, or until it exits (errPortTaken when a port was taken).
func (r *Redis) launch() error {
	r.t.Helper()
	cmd := exec.Command(r.bin, r.argv()...)
	cmd.Stdout, cmd.Stderr = &r.log, &r.log
	from := r.log.Len()
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	exited := reap(cmd)
	r.mu.Lock()
	r.cmd, r.exited = cmd, exited
	r.mu.Unlock()
	if err := r.awaitListening(from, exited); err != nil {
		r.take()
		return err
	}
	Eventually(r.t, redisStart, "redis-server answering PING on "+r.addr(), r.Pings)
	return nil
}

// argv returns redis-server's arguments.
func (r *Redis) argv() []string {
	args := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--save", "", "--appendonly", "no", "--enable-debug-command", "local"}
	if r.bus != 0 {
		args = append(args, "--cluster-port", strconv.Itoa(r.bus))
	}
	args = append(args, r.args...)
	if r.conf != "" {
		args = append([]string{r.conf}, args...)
	}
	return args
}

// awaitListening waits until the log, from offset from on, says the
// server listens, or the process exits.
func (r *Redis) awaitListening(from int, exited <-chan struct{}) error {
	r.t.Helper()
	var err error
	ok := Poll(redisStart, func() bool {
		out := r.log.String()[from:]
		select {
		case <-exited:
			err = errors.New("redis-server exited")
			if strings.Contains(out, "Address already in use") {
				err = errPortTaken
			}
			return true
		default:
		}
		return strings.Contains(out, redisListening)
	})
	if !ok {
		r.t.Fatalf("redis-server on %s never said it listens\n%s", r.addr(), r.Output())
	}
	return err
}

// reap waits for cmd in a goroutine and returns a channel closed once it
// has exited.
func reap(cmd *exec.Cmd) chan struct{} {
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	return done
}

// Kill stops redis-server with SIGKILL, as a crash would, and reaps it:
// its data since the last SHUTDOWN SAVE is lost.
func (r *Redis) Kill() {
	if cmd, exited := r.take(); cmd != nil {
		cmd.Process.Signal(sigCont) // a paused server dies only once it runs
		cmd.Process.Kill()
		<-exited
	}
}

// Wipe removes the data a SHUTDOWN SAVE left for the next Start, so that
// a server killed after one starts again empty, as Kill alone does not
// make it (its cluster config, nodes.conf, stays). Call it while the
// server is not running.
func (r *Redis) Wipe() {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.dir, "dump.rdb")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.t.Fatalf("removing the redis-server data: %v", err)
	}
}

// Shutdown stops redis-server with SHUTDOWN SAVE (keeping its data for the
// next Start) or SHUTDOWN NOSAVE, and waits until it has exited.
func (r *Redis) Shutdown(save bool) {
	r.t.Helper()
	how := "NOSAVE"
	if save {
		how = "SAVE"
	}
	r.Command(redisStart, "SHUTDOWN", how) // no reply: the server exits
	if cmd, exited := r.take(); cmd != nil {
		<-exited
	}
}

// take forgets and returns the running process, with the channel closed
// once it has exited.
func (r *Redis) take() (*exec.Cmd, chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cmd, exited := r.cmd, r.exited
	r.cmd, r.exited = nil, nil
	return cmd, exited
}

// Pause stops the server with SIGSTOP: connections stay open and
// commands get no answer until Resume.
func (r *Redis) Pause() { r.signal(sigStop) }

// Resume continues a paused server with SIGCONT.
func (r *Redis) Resume() { r.signal(sigCont) }

func (r *Redis) signal(sig syscall.Signal) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	signalServer(r.t, r.cmd, "redis-server on "+r.addr(), sig)
}

// Pings reports whether the server answers PING with PONG within a second.
func (r *Redis) Pings() bool {
	reply, err := r.Command(time.Second, "PING")
	return err == nil && reply == "+PONG"
}

// Command sends one command on a new connection and returns the first line
// of the reply (such as "+OK" or "-ERR ..."), waiting at most timeout. It
// is for what a test does to the server itself (DEBUG SLEEP, SHUTDOWN).
func (r *Redis) Command(timeout time.Duration, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", r.addr(), timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	var req strings.Builder
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(req.String())); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// Output returns what redis-server printed, for failure messages.
func (r *Redis) Output() string { return r.log.String() }

// SyncBuffer is a bytes.Buffer that a child process's stdout and stderr
// may write to at once while a test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Len returns how many bytes have been written so far.
func (b *SyncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
