package testutil

import (
	"bufio"
	"cmp"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// MachineNATSURL is the NATS server with JetStream every machine here runs,
// shared by tests that keep apart by their subject and bucket prefixes;
// $NATS_URL (the variable the NATS tools read) names another.
var MachineNATSURL = cmp.Or(os.Getenv("NATS_URL"), "nats://127.0.0.1:4222")

// natsStart bounds how long a nats-server may take to answer with
// JetStream on.
const natsStart = 10 * time.Second

// NATSFlags are roost serve's flags that join a node to the NATS at url
// under prefix: the NATS row of a table of backends.
func NATSFlags(url, prefix string) []string {
	return []string{"--nats-url", url, "--nats-prefix", prefix}
}

// NeedsMachineNATS stops the test (Needs) unless the machine's NATS answers
// with JetStream enabled, and returns its URL.
func NeedsMachineNATS(t testing.TB) string {
	t.Helper()
	if ok, why := natsJetStream(strings.TrimPrefix(MachineNATSURL, "nats://")); !ok {
		Needs(t, "no NATS with JetStream at %s (%s); the NATS cluster tests need it", MachineNATSURL, why)
	}
	return MachineNATSURL
}

// natsJetStream reports whether a NATS server at addr says, in the INFO line
// it greets every client with, that JetStream is on.
func natsJetStream(addr string) (bool, string) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false, err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	switch {
	case err != nil:
		return false, err.Error()
	case !strings.HasPrefix(line, "INFO "):
		return false, "no INFO line"
	case !strings.Contains(line, `"jetstream":true`):
		return false, "JetStream is off (start nats-server with -js)"
	}
	return true, ""
}

// NATS is a private nats-server with JetStream on a free loopback port, for
// tests that make NATS fail under roost: kill it, pause it, restart it with
// its data or empty. Its JetStream store is a directory of its own.
type NATS struct {
	t    testing.TB
	bin  string
	dir  string
	port int

	mu  sync.Mutex // guards cmd
	cmd *exec.Cmd
	log SyncBuffer
}

// StartNATS starts a private nats-server, or stops the test (Needs) when
// there is no nats-server binary. It is killed when the test ends.
func StartNATS(t testing.TB) *NATS {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr != nil {
			Needs(t, "no nats-server binary on PATH or in /usr/sbin (%v)", err)
		}
		bin = "/usr/sbin/nats-server"
	}
	n := &NATS{t: t, bin: bin, dir: t.TempDir(), port: anyPort}
	n.Start()
	t.Cleanup(n.Kill)
	return n
}

// URL is the nats:// URL of the server.
func (n *NATS) URL() string { return "nats://" + n.addr() }

// Addr is the server's host:port.
func (n *NATS) Addr() string { return n.addr() }

func (n *NATS) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

// anyPort is nats-server's port -1: the kernel picks a free one, and the
// server logs which (natsListening), so no other process can take it first.
const anyPort = -1

// natsListening is the line in which nats-server names its client port.
var natsListening = regexp.MustCompile(`Listening for client connections on 127\.0\.0\.1:(\d+)`)

// Start runs nats-server on its port with JetStream on its store (what it
// kept before, if anything) and waits until it greets a client with
// JetStream on. The first Start lets the kernel pick the port; the later
// ones reuse it, as a restarted server would.
func (n *NATS) Start() {
	n.t.Helper()
	from := n.log.Len()
	cmd := exec.Command(n.bin, "-a", "127.0.0.1", "-p", strconv.Itoa(n.port), "-js", "-sd", n.store())
	cmd.Stdout, cmd.Stderr = &n.log, &n.log
	if err := cmd.Start(); err != nil {
		n.t.Fatalf("starting nats-server: %v", err)
	}
	n.mu.Lock()
	n.cmd = cmd
	n.mu.Unlock()
	if n.port == anyPort {
		n.port = n.boundPort(from)
	}
	Eventually(n.t, natsStart, "nats-server with JetStream on "+n.addr(), func() bool {
		ok, _ := natsJetStream(n.addr())
		return ok
	})
}

// boundPort waits until the log, from offset from on, names the port the
// server listens on.
func (n *NATS) boundPort(from int) int {
	n.t.Helper()
	var m []string
	Eventually(n.t, natsStart, "nats-server naming its port", func() bool {
		m = natsListening.FindStringSubmatch(n.log.String()[from:])
		return m != nil
	})
	port, _ := strconv.Atoi(m[1])
	return port
}

func (n *NATS) store() string { return filepath.Join(n.dir, "store") }

// Kill stops nats-server with SIGKILL, as a crash would, and reaps it. Its
// store stays for the next Start, as a disk would keep it.
func (n *NATS) Kill() {
	n.mu.Lock()
	cmd := n.cmd
	n.cmd = nil
	n.mu.Unlock()
	if cmd != nil {
		cmd.Process.Signal(sigCont) // a paused server dies only once it runs
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// Wipe removes the store of a killed server: the next Start is empty.
func (n *NATS) Wipe() {
	n.t.Helper()
	if err := os.RemoveAll(n.store()); err != nil {
		n.t.Fatalf("removing the nats-server store: %v", err)
	}
}

// Pause stops the server with SIGSTOP: connections stay open and nothing
// is answered until Resume.
func (n *NATS) Pause() { n.signal(sigStop) }

// Resume continues a paused server with SIGCONT.
func (n *NATS) Resume() { n.signal(sigCont) }

func (n *NATS) signal(sig syscall.Signal) {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	signalServer(n.t, n.cmd, "nats-server on "+n.addr(), sig)
}

// Output returns what nats-server printed, for failure messages.
func (n *NATS) Output() string { return n.log.String() }
