package netpoll

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// pingClient is the client end of a socket pair whose other end one loop
// serves, past its pusher:connection_established.
type pingClient struct {
	fd   int
	ping []byte // pusher-js's keep-alive, masked as a client must
	pong []byte // the frame the loop must answer with
	buf  []byte
}

// newTestPoller starts a one-loop poller with minute-long timeouts; the
// caller closes it.
func newTestPoller(tb testing.TB) *Poller {
	h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 1)
	env := &session.Env{Hub: h, Config: &config.Config{ActivityTimeout: time.Minute},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	pol := transport.Policy{MaxMessage: 10 << 10, WriteBacklog: 1 << 20, WriteTimeout: time.Minute,
		ActivityTimeout: time.Minute, PongWait: time.Minute, CloseTimeout: time.Second}
	p, err := New(Config{Loops: 1, Hub: h, Env: env, Policy: pol})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// socketPair returns the two ends of a socket pair: the client's, closed
// when the test ends, and the loop's, non-blocking.
func socketPair(tb testing.TB) (client, server int) {
	tb.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fds[0]) })
	if err := unix.SetNonblock(fds[1], true); err != nil {
		tb.Fatal(err)
	}
	return fds[0], fds[1]
}

// newPingClient starts a one-loop poller and hands it one end of a
// socket pair, as Add hands it an upgraded connection.
func newPingClient(tb testing.TB) *pingClient {
	p := newTestPoller(tb)
	tb.Cleanup(func() { p.close() })
	client, server := socketPair(tb)
	p.Add(server, nil, &config.App{ID: "app", Key: "key"}, ws.State{})
	c := &pingClient{fd: client, buf: make([]byte, 4096),
		ping: ws.AppendMaskedFrame(nil, ws.OpText, []byte(`{"event":"pusher:ping","data":{}}`), [4]byte{1, 2, 3, 4}),
		pong: ws.AppendFrame(nil, ws.OpText, pusher.AppendPong(nil))}
	if _, err := unix.Read(c.fd, c.buf); err != nil { // connection_established
		tb.Fatal(err)
	}
	return c
}

// exchange sends one ping and reads the whole answer.
func (c *pingClient) exchange() ([]byte, error) {
	if _, err := unix.Write(c.fd, c.ping); err != nil {
		return nil, err
	}
	got := 0
	for got < len(c.pong) {
		n, err := unix.Read(c.fd, c.buf[got:])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		got += n
	}
	return c.buf[:got], nil
}

// TestLoopAnswersPing: the loop answers pusher-js's keep-alive with
// pusher:pong, and with nothing else.
func TestLoopAnswersPing(t *testing.T) {
	c := newPingClient(t)
	for range 3 {
		got, err := c.exchange()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, c.pong) {
			t.Fatalf("answer %q, want %q", got, c.pong)
		}
	}
}

// BenchmarkPingExchange is the upkeep of an idle connection: a client's
// ping through a loop, its pong back. It must not allocate; cpu-µs/op is
// the process's CPU (both ends of the pair) per exchange, from getrusage.
func BenchmarkPingExchange(b *testing.B) {
	c := newPingClient(b)
	b.ReportAllocs()
	before := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		if _, err := c.exchange(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-before)/1e3/float64(b.N), "cpu-µs/op")
}

// cpuTime is the CPU the process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
