package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Target is the server under load.
type Target struct {
	// URL is the server's base HTTP URL, "http://host:port".
	URL string `json:"url"`
	// AppID, Key and Secret name the app to connect to and publish on.
	AppID  string `json:"app_id"`
	Key    string `json:"key"`
	Secret string `json:"-"`
	// PID is the server's process id when it runs on this machine, for the
	// /proc cross-check; zero means unknown.
	PID int `json:"pid,omitempty"`
	// CAFile is a PEM file of certificates to trust for an https:// URL
	// besides the system's; empty means the system's only.
	CAFile string `json:"-"`
	// Transport is what the server says it serves on its start line
	// ("epoll+uring", "epoll" or "portable"), known for a child server;
	// empty means unknown (a server at --url).
	Transport string `json:"transport,omitempty"`
}

// WebSocketURL returns the app endpoint as pusher-js would open it.
func (t Target) WebSocketURL() string {
	u := strings.Replace(t.URL, "http", "ws", 1)
	return u + "/app/" + url.PathEscape(t.Key) + "?protocol=7&client=roost-bench&version=8.4.0&flash=false"
}

// FindLocalPID sets PID from the process listening on the URL's port when
// the host is this machine's loopback, and reports whether it did.
func (t *Target) FindLocalPID() bool {
	u, err := url.Parse(t.URL)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	if u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return false
	}
	pid, err := FindPID(port)
	if err != nil {
		return false
	}
	t.PID = pid
	return true
}

// Bench app credentials of the servers Report starts.
const (
	benchAppID     = "bench"
	benchAppKey    = "bench-key"
	benchAppSecret = "bench-secret"
)

// ServerSpawner starts `roost serve` with the given arguments (not
// including "serve") and returns it unstarted.
type ServerSpawner func(args []string) *exec.Cmd

// SelfServer re-executes the running binary as `roost serve`.
func SelfServer(args []string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, append([]string{"serve"}, args...)...)
}

// DefaultTransport is the transport a child server is asked for unless told
// otherwise: what `roost serve` picks by default, so that the bench
// measures what a server serves.
const DefaultTransport = "auto"

// BinaryServer returns a ServerSpawner that runs the roost binary at path
// as `roost serve`: another build's server driven by this build's bench.
func BinaryServer(path string) ServerSpawner {
	return func(args []string) *exec.Cmd {
		return exec.Command(path, append([]string{"serve"}, args...)...)
	}
}

// ServerOptions configures a roost started as a child process.
type ServerOptions struct {
	// Transport is the --transport asked for: "auto", "epoll",
	// "epoll+uring" or "portable". Zero value means DefaultTransport. The
	// one served is in the started server's Target.Transport.
	Transport string
	// ActivityTimeout is the server's activity_timeout; zero means its
	// default (120 s).
	ActivityTimeout time.Duration
	// Compression turns on the bench app's compression (permessage-deflate).
	Compression bool
	// Spawn starts the server; nil means SelfServer.
	Spawn ServerSpawner
	// Stderr receives the server's log; nil discards it.
	Stderr io.Writer
	// Addr is the address to listen on. Zero value means 127.0.0.1:0.
	Addr string
	// Args are more `roost serve` flags (a cluster's backend).
	Args []string
	// Env adds NAME=value settings to the server's environment (its
	// ROOST_* configuration).
	Env []string
	// TLS makes the server serve wss:// and https:// itself, with a
	// self-signed certificate that Target.CAFile names.
	TLS bool
}

// Server is a roost child process.
type Server struct {
	Target
	cmd  *exec.Cmd
	done chan struct{}
	dir  string // holds the TLS certificate, removed by Stop; "" if none
}

// StartServer starts roost on 127.0.0.1:0 with the debug endpoints on and
// the bench app defined, and waits for it to serve.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	spawn := o.Spawn
	if spawn == nil {
		spawn = SelfServer
	}
	listen := cmpOr(o.Addr, "127.0.0.1:0")
	args := append([]string{"--addr", listen, "--transport", cmpOr(o.Transport, DefaultTransport)}, o.Args...)
	var dir, caFile string
	if o.TLS {
		var err error
		if dir, caFile, args, err = tlsArgs(args); err != nil {
			return nil, err
		}
	}
	cmd := spawn(args)
	cmd.Env = append(os.Environ(), "ROOSTDEBUG=endpoints", "ROOST_LOG_LEVEL=warn",
		"ROOST_APP_ID="+benchAppID, "ROOST_APP_KEY="+benchAppKey, "ROOST_APP_SECRET="+benchAppSecret)
	if o.ActivityTimeout > 0 {
		cmd.Env = append(cmd.Env, "ROOST_ACTIVITY_TIMEOUT="+o.ActivityTimeout.String())
	}
	if o.Compression {
		cmd.Env = append(cmd.Env, "ROOST_APP_COMPRESSION=true")
	}
	cmd.Env = append(cmd.Env, o.Env...)
	cmd.Stderr = o.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start server: %w", err)
	}
	s := &Server{cmd: cmd, done: make(chan struct{}), dir: dir,
		Target: Target{AppID: benchAppID, Key: benchAppKey, Secret: benchAppSecret, PID: cmd.Process.Pid, CAFile: caFile}}
	banners := make(chan banner, 1)
	go s.readBanner(stdout, banners)
	select {
	case b := <-banners:
		s.URL, s.Transport = b.url, b.transport
		return s, nil
	case <-s.done:
		err = errors.New("exited before serving")
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(30 * time.Second):
		err = errors.New("not serving after 30 s")
	}
	s.Stop()
	return nil, fmt.Errorf("bench: server %s: %w", o.Transport, err)
}

// banner is what a server's start line says.
type banner struct {
	url       string // where it serves, "http://127.0.0.1:PORT"
	transport string // what it serves: "epoll+uring", "epoll" or "portable"
}

// parseBanner reads `roost serve`'s start line, "roost VERSION serving on
// URL (transport NAME)", and reports whether line is one.
func parseBanner(line string) (banner, bool) {
	_, rest, ok := strings.Cut(line, "serving on ")
	if !ok {
		return banner{}, false
	}
	f := strings.Fields(rest)
	if len(f) != 3 || f[1] != "(transport" {
		return banner{}, false
	}
	name, ok := strings.CutSuffix(f[2], ")")
	if !ok || name == "" || strings.Contains(name, ")") {
		return banner{}, false
	}
	return banner{url: f[0], transport: name}, true
}

// readBanner finds the start line and then drains stdout.
func (s *Server) readBanner(stdout io.Reader, banners chan<- banner) {
	defer close(s.done)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if b, ok := parseBanner(sc.Text()); ok {
			banners <- b
		}
	}
}

// Stop ends the server with SIGTERM (a graceful drain), then SIGKILL after
// 30 seconds.
func (s *Server) Stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.AfterFunc(30*time.Second, func() { s.cmd.Process.Kill() })
	defer timer.Stop()
	<-s.done
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	return s.cmd.Wait()
}

// Probe reads a server's figures.
type Probe struct {
	Target Target
	Client *http.Client
}

// NewProbe returns a probe with a short-timeout HTTP client.
func NewProbe(t Target) *Probe {
	return &Probe{Target: t, Client: &http.Client{Timeout: 30 * time.Second, Transport: t.httpTransport()}}
}

// Sample is a server's state at one moment.
type Sample struct {
	At time.Time `json:"at"`
	// Transport is the transport the server serves: the one its start
	// line named when known (Target.Transport), else the transport label
	// with the most connections (which says "epoll" for epoll+uring too).
	Transport     string  `json:"transport"`
	Connections   float64 `json:"connections"`
	Subscriptions float64 `json:"subscriptions"`
	// RSS and CPU are process_resident_memory_bytes and
	// process_cpu_seconds_total from /metrics.
	RSS float64 `json:"rss"`
	CPU float64 `json:"cpu_seconds"`
	// HeapInuse, StackInuse and Goroutines come from the Go collector.
	HeapInuse  float64 `json:"heap_inuse"`
	StackInuse float64 `json:"stack_inuse"`
	Goroutines float64 `json:"goroutines"`
	// Delivered, Received and Accepted are roost's message and handshake
	// counters.
	Delivered float64 `json:"delivered"`
	Received  float64 `json:"received"`
	Accepted  float64 `json:"accepted"`
	// SentBytes is roost_sent_bytes_total, for bytes per delivered frame.
	SentBytes float64 `json:"sent_bytes"`
	// HooksSent and HooksQueued are roost_webhook_sent_total and
	// roost_webhook_queue_depth, summed over the apps.
	HooksSent   float64 `json:"webhooks_sent,omitempty"`
	HooksQueued float64 `json:"webhooks_queued,omitempty"`
	// Proc is read from /proc/PID when the pid is known.
	Proc *ProcStat `json:"proc,omitempty"`
	// Slab is this machine's kernel slab (meaningful when the server and
	// its clients run here).
	Slab Slab `json:"slab"`
	// Load is this machine's one-minute load average: other work on a
	// shared machine shows here, and in the figures.
	Load float64 `json:"load1"`
}

// Sample scrapes /metrics and reads /proc.
func (p *Probe) Sample(ctx context.Context) (Sample, error) {
	m, err := Scrape(ctx, p.Client, p.Target.URL+"/metrics")
	if err != nil {
		return Sample{}, err
	}
	s := Sample{At: time.Now()}
	for _, f := range []struct {
		dst  *float64
		name string
	}{
		{&s.Connections, "roost_connections"}, {&s.Subscriptions, "roost_subscriptions"},
		{&s.RSS, "process_resident_memory_bytes"}, {&s.CPU, "process_cpu_seconds_total"},
		{&s.HeapInuse, "go_memstats_heap_inuse_bytes"}, {&s.StackInuse, "go_memstats_stack_inuse_bytes"},
		{&s.Goroutines, "go_goroutines"}, {&s.Delivered, "roost_messages_delivered_total"},
		{&s.Received, "roost_messages_received_total"}, {&s.SentBytes, "roost_sent_bytes_total"},
		{&s.HooksSent, "roost_webhook_sent_total"}, {&s.HooksQueued, "roost_webhook_queue_depth"},
	} {
		*f.dst, _ = m.Sum(f.name)
	}
	s.Accepted = m[`roost_handshakes_total{result="accepted"}`]
	s.Transport = cmpOr(p.Target.Transport, busiestTransport(m))
	if p.Target.PID > 0 {
		if ps, err := ReadProc(p.Target.PID); err == nil {
			s.Proc = &ps
		}
	}
	s.Slab, _ = ReadSlab()
	s.Load = loadAverage()
	return s, nil
}

// CPUSeconds is the sample's CPU time: from /proc when read, else from
// /metrics (the same kernel counter, read by the server itself).
func (s *Sample) CPUSeconds() float64 {
	if s.Proc != nil {
		return s.Proc.CPUSeconds
	}
	return s.CPU
}

// ForceGC asks the server for runtime.GC and debug.FreeOSMemory (POST
// /debug/gc, served when it runs with ROOSTDEBUG=endpoints). It reports
// false when the endpoint is not served.
func (p *Probe) ForceGC(ctx context.Context) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Target.URL+"/debug/gc", nil)
	if err != nil {
		return false, fmt.Errorf("bench: %w", err)
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return false, fmt.Errorf("bench: force GC: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode == http.StatusNotFound {
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("bench: force GC: %s", resp.Status)
	}
	return true, nil
}

// busiestTransport returns the transport label of roost_connections with
// the most connections ("epoll" when none has any and epoll is served).
func busiestTransport(m Metrics) string {
	const prefix = `roost_connections{transport="`
	best, most := "", -1.0
	for series, v := range m {
		name, ok := strings.CutPrefix(series, prefix)
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, `"}`)
		if v > most || v == most && name == "epoll" {
			best, most = name, v
		}
	}
	return best
}
