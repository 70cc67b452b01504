package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// MaxPerWorker is how many connections one worker process holds at most:
// well under the 20,000 open files a process may have here, and under the
// ~28,000 ephemeral ports of its one source address.
const MaxPerWorker = 9000

// Spawner starts a worker process with the given `roost bench worker`
// arguments (not including those two words) and returns it unstarted.
type Spawner func(args []string) *exec.Cmd

// SelfSpawner re-executes the running binary as `roost bench worker`.
func SelfSpawner(args []string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, append([]string{"bench", "worker"}, args...)...)
}

// FleetConfig describes a set of worker processes loading one server.
type FleetConfig struct {
	// XHRStreaming makes the connections pusher-js xhr_streaming sessions
	// (the HTTP fallback) instead of WebSockets.
	XHRStreaming bool
	// URL is the WebSocket URL of the app endpoint (Target.WebSocketURL).
	URL string
	// CAFile names certificates a wss:// URL's server may present besides
	// the system's (Target.CAFile); empty means none.
	CAFile string
	// Workers is the number of processes. Zero means one.
	Workers int
	// FirstSource is the last octet of the first worker's source address
	// 127.0.0.x; worker i dials from 127.0.0.(FirstSource+i). Zero means 2.
	FirstSource int
	// Channels is how many channels each connection subscribes to. Zero
	// means 1.
	Channels int
	// ChannelPool, when positive, draws channel names from that many shared
	// channels ("bench-p0" ...); zero gives every subscription its own.
	ChannelPool int
	// PoolPrefix starts the names of the pool's channels. Zero value means
	// PoolPrefix, the constant.
	PoolPrefix string
	// ChannelOffset shifts the fleet's draw from the pool; with SpreadPool,
	// worker i draws from ChannelOffset + i*MaxPerWorker on, so that the
	// workers (and fleets given different offsets) cover the pool instead
	// of all starting at its first channel. Zero values keep every worker
	// at the start of the pool.
	ChannelOffset int
	SpreadPool    bool
	// Also is a channel every connection subscribes to besides its own
	// ("" means none): the one channel a whole cluster shares.
	Also string
	// Ping overrides the client ping interval; zero means the server's
	// activity_timeout, as pusher-js does.
	Ping time.Duration
	// Deflate has the connections offer permessage-deflate.
	Deflate bool
	// ChurnBare has churned connections close without subscribing.
	ChurnBare bool
	// NoRead has ready connections never read again (a client that does
	// not read what it is sent).
	NoRead bool
	// Spawn starts a worker; nil means SelfSpawner.
	Spawn Spawner
	// Stderr receives the workers' standard error; nil discards it.
	Stderr io.Writer
}

// WorkersFor returns how many workers n connections need.
func WorkersFor(n int) int { return max(1, (n+MaxPerWorker-1)/MaxPerWorker) }

// Fleet is a running set of workers.
type Fleet struct {
	procs []*workerProc
}

// workerProc is one worker process as its parent sees it.
type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	hists chan *Histogram
	done  chan struct{} // closed when stdout ends

	mu   sync.Mutex // guards last
	last WorkerStatus
}

// StartFleet starts the workers; they hold no connection until Open.
func StartFleet(cfg FleetConfig) (*Fleet, error) {
	cfg = cfg.withDefaults()
	f := &Fleet{}
	for i := range cfg.Workers {
		p, err := startWorker(cfg, i)
		if err != nil {
			f.Close()
			return nil, err
		}
		f.procs = append(f.procs, p)
	}
	return f, nil
}

func (c FleetConfig) withDefaults() FleetConfig {
	c.Workers = max(c.Workers, 1)
	if c.FirstSource == 0 {
		c.FirstSource = 2
	}
	c.Channels = max(c.Channels, 1)
	if c.Spawn == nil {
		c.Spawn = SelfSpawner
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return c
}

// offset is worker i's shift of its draw from the pool.
func (c FleetConfig) offset(i int) int {
	if c.SpreadPool {
		return c.ChannelOffset + i*MaxPerWorker
	}
	return c.ChannelOffset
}

func startWorker(cfg FleetConfig, i int) (*workerProc, error) {
	cmd := cfg.Spawn([]string{
		"--url", cfg.URL, "--source", "127.0.0." + strconv.Itoa(cfg.FirstSource+i), "--id", strconv.Itoa(i),
		"--channels", strconv.Itoa(cfg.Channels), "--pool", strconv.Itoa(cfg.ChannelPool), "--ping", cfg.Ping.String(), "--also", cfg.Also,
		"--pool-prefix", cmpOr(cfg.PoolPrefix, PoolPrefix),
		"--offset", strconv.Itoa(cfg.offset(i)), "--ca", cfg.CAFile,
		"--deflate=" + strconv.FormatBool(cfg.Deflate), "--churn-bare=" + strconv.FormatBool(cfg.ChurnBare),
		"--no-read=" + strconv.FormatBool(cfg.NoRead),
		"--xhr-streaming=" + strconv.FormatBool(cfg.XHRStreaming),
	})
	cmd.Stderr = cfg.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: worker %d: %w", i, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: worker %d: %w", i, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start worker %d: %w", i, err)
	}
	p := &workerProc{cmd: cmd, stdin: stdin, hists: make(chan *Histogram, 1), done: make(chan struct{})}
	go p.read(stdout)
	return p, nil
}

// read consumes the worker's JSON lines until it exits.
func (p *workerProc) read(stdout io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var line struct {
			WorkerStatus
			Hist *Histogram `json:"hist"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if line.Hist != nil {
			p.hists <- line.Hist
			continue
		}
		p.mu.Lock()
		p.last = line.WorkerStatus
		p.mu.Unlock()
	}
}

func (p *workerProc) send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// share returns worker i's part of n spread evenly over the workers.
func (f *Fleet) share(n, i int) int {
	w := len(f.procs)
	return n*(i+1)/w - n*i/w
}

// Open asks the fleet to hold n ready connections, dialling at rate per
// second in all.
func (f *Fleet) Open(n int, rate float64) error {
	var errs []error
	for i, p := range f.procs {
		errs = append(errs, p.send(fmt.Sprintf("open %d %g", f.share(n, i), rate/float64(len(f.procs)))))
	}
	return errors.Join(errs...)
}

// Churn sets the fleet's churn rate per second (0 stops): connect,
// subscribe and disconnect, or only connect and disconnect with ChurnBare.
func (f *Fleet) Churn(rate float64) error {
	var errs []error
	for _, p := range f.procs {
		errs = append(errs, p.send(fmt.Sprintf("churn %g", rate/float64(len(f.procs)))))
	}
	return errors.Join(errs...)
}

// Status sums the workers' latest reports.
func (f *Fleet) Status() WorkerStatus {
	var s WorkerStatus
	for _, p := range f.procs {
		p.mu.Lock()
		s.add(p.last)
		p.mu.Unlock()
	}
	return s
}

// exited reports a worker that has stopped.
func (f *Fleet) exited() error {
	for i, p := range f.procs {
		select {
		case <-p.done:
			return fmt.Errorf("bench: worker %d exited", i)
		default:
		}
	}
	return nil
}

// WaitReady polls until n connections are ready, calling progress on each
// poll. It fails when a worker exits, or when failures pass maxFailed.
func (f *Fleet) WaitReady(ctx context.Context, n int, maxFailed int64, progress func(WorkerStatus)) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		s := f.Status()
		if progress != nil {
			progress(s)
		}
		switch {
		case s.Ready >= int64(n):
			return nil
		case s.Failed > maxFailed:
			return fmt.Errorf("bench: %d connections failed (last error: %s)", s.Failed, s.Err)
		}
		if err := f.exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bench: %d of %d connections ready: %w (last error: %s)", s.Ready, n, ctx.Err(), s.Err)
		case <-t.C:
		}
	}
}

// Histogram collects and merges the workers' latency histograms, resetting
// them.
func (f *Fleet) Histogram(ctx context.Context) (*Histogram, error) {
	for _, p := range f.procs {
		if err := p.send("hist"); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
	}
	var all Histogram
	for i, p := range f.procs {
		select {
		case h := <-p.hists:
			all.Merge(h)
		case <-p.done:
			return nil, fmt.Errorf("bench: worker %d exited", i)
		case <-ctx.Done():
			return nil, fmt.Errorf("bench: waiting for histograms: %w", ctx.Err())
		}
	}
	return &all, nil
}

// Close tells every worker to quit and waits for them, killing any that
// take longer than 30 seconds.
func (f *Fleet) Close() error {
	for _, p := range f.procs {
		p.send("quit")
		p.stdin.Close()
	}
	var errs []error
	for i, p := range f.procs {
		timer := time.AfterFunc(30*time.Second, func() { p.cmd.Process.Kill() })
		<-p.done
		if err := p.cmd.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("bench: worker %d: %w", i, err))
		}
		timer.Stop()
	}
	f.procs = nil
	return errors.Join(errs...)
}

// PoolPrefix starts the names of a pool's shared channels ("bench-p0" ...)
// unless FleetConfig.PoolPrefix says otherwise.
const PoolPrefix = "bench-p"
