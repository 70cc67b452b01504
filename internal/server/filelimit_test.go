package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// childEnv tells the test binary, re-run by TestFileLimit, to be the roost
// node with a low file limit: its value is the transport.
const childEnv = "ROOST_TEST_FILE_LIMIT_CHILD"

// childFiles is the child's file limit; fileLimitClients are more clients
// than it can hold.
const (
	childFiles       = 256
	fileLimitClients = 600
)

// outcome is what one client of TestFileLimit got.
type outcome int

const (
	working         outcome = iota // 101 and pusher:connection_established
	refused503                     // HTTP 503 before any upgrade
	upgradeThenLost                // 101, then the socket ended: what must never happen
	otherOutcome                   // anything else (a reset before any answer, a timeout)
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"working", "503", "101-then-EOF", "other"}

// TestFileLimit runs a node whose file limit is 256 and opens 600 clients
// at once: each must get a working connection or an HTTP 503, never 101
// Switching Protocols and then a dropped socket, which is what it got when
// the socket was duplicated for its loop after the 101. On epoll the loops'
// accept(2) must never fail: the handshakes they hold are bounded
// (netpoll.Config.MaxHandshakes), so that they leave descriptors free.
func TestFileLimit(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child")
	}
	eachTransport(t, func(t *testing.T, tr string) {
		addr, logs := startChild(t, tr)
		var counts [numOutcomes]int
		var mu sync.Mutex
		var wg sync.WaitGroup
		hold := make(chan struct{})
		for range fileLimitClients {
			wg.Go(func() {
				o, c := dialOnce(addr)
				mu.Lock()
				counts[o]++
				mu.Unlock()
				<-hold // a working connection stays open until every client has its answer
				c.Close()
			})
		}
		waitCounted(&mu, &counts)
		close(hold)
		wg.Wait()
		t.Logf("%d clients, file limit %d: %v = %v; %d log lines:\n%s", fileLimitClients, childFiles,
			outcomeNames, counts, strings.Count(logs(), "\n"), logs())
		if counts[upgradeThenLost] > 0 || counts[otherOutcome] > 0 || counts[working] == 0 || counts[refused503] == 0 {
			t.Fatalf("outcomes %v = %v: want only working connections and 503s, some of each", outcomeNames, counts)
		}
		if n := strings.Count(logs(), "Accept error"); n > 15 {
			t.Errorf("%d accept errors logged; at most one a second is wanted:\n%s", n, logs())
		}
		if n := strings.Count(logs(), "accept failed"); n > 0 {
			t.Errorf("the loops' accept(2) failed %d times: the handshakes being refused took the descriptors left:\n%s", n, logs())
		}
	})
}

// waitCounted returns once every client has an outcome.
func waitCounted(mu *sync.Mutex, counts *[numOutcomes]int) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := 0
		for _, c := range counts {
			n += c
		}
		mu.Unlock()
		if n == fileLimitClients {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dialOnce opens one WebSocket to the development app and says what it
// got, with the connection for the caller to close.
func dialOnce(addr string) (outcome, net.Conn) {
	c, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return otherOutcome, nopConn{}
	}
	return outcomeOf(c), c
}

// nopConn stands for a connection that was never made.
type nopConn struct{ net.Conn }

func (nopConn) Close() error { return nil }

// outcomeOf sends the opening handshake on c and classifies the answer.
func outcomeOf(c net.Conn) outcome {
	c.SetDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(c, "GET /app/app-key?protocol=7&client=js&version=8.6.0 HTTP/1.1\r\nHost: roost\r\nUpgrade: websocket\r\n"+
		"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	switch {
	case err != nil:
		return otherOutcome
	case resp.StatusCode == http.StatusServiceUnavailable:
		return refused503
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return otherOutcome
	}
	frame := make([]byte, 2)
	if _, err := io.ReadFull(br, frame); err != nil {
		return upgradeThenLost
	}
	payload := make([]byte, frame[1]&0x7f)
	if _, err := io.ReadFull(br, payload); err != nil || !strings.Contains(string(payload), "connection_established") {
		return upgradeThenLost
	}
	return working
}

// startChild runs this test binary as a roost node with transport tr and a
// file limit of childFiles, and returns its address and a reader of its log.
func startChild(t *testing.T, tr string) (string, func() string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileLimitChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+tr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "addr "); ok {
			go io.Copy(io.Discard, stdout)
			return addr, logs.String
		}
	}
	t.Fatalf("the child printed no address; its log:\n%s", logs)
	return "", nil
}

// TestFileLimitChild is the node TestFileLimit runs: it lowers its own
// file limit, serves on 127.0.0.1:0, prints the address and stops when its
// standard input closes.
func TestFileLimitChild(t *testing.T) {
	tr := os.Getenv(childEnv)
	if tr == "" {
		t.Skip("run by TestFileLimit")
	}
	lim := syscall.Rlimit{Cur: childFiles, Max: childFiles}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("addr: 127.0.0.1:0\ntransport: "+tr+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	fmt.Printf("addr %s\n", ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		t.Error(err)
	}
}
