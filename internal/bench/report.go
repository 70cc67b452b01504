package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ReportOptions configures Report. Zero values mean the documented run.
type ReportOptions struct {
	Common
	// Out is the directory the results go to, as Out/bench/*. Zero value
	// means "docs".
	Out string
	// Steps are the idle connection counts. Zero value means 0, 5,000,
	// 10,000, 15,000 and 19,000 (a server process here may open at most
	// 20,000 files).
	Steps []int
	// Transports to ask for (ServerOptions.Transport), the first being the
	// one reported and the others its baselines; each is recorded as the
	// transport its server says it serves. Zero value means
	// DefaultTransport, then portable.
	Transports []string
	// ActivityTimeout of the servers; the idle CPU is measured with it and
	// scaled to 120 s. Zero value means 10 s.
	ActivityTimeout time.Duration
	// Window is the CPU window at each step. Zero value means three
	// activity timeouts.
	Window time.Duration
	// RampRate is new connections per second. Zero value means 4,000.
	RampRate float64
	// Fanout and Churn configure those parts; their Common is ignored.
	Fanout FanoutOptions
	Churn  ChurnOptions
	// Command is the command line recorded in the report.
	Command string
}

func (o *ReportOptions) defaults() {
	o.Out = cmpOr(o.Out, "docs")
	if len(o.Steps) == 0 {
		o.Steps = []int{0, 5000, 10000, 15000, 19000}
	}
	if len(o.Transports) == 0 {
		o.Transports = []string{DefaultTransport, "portable"}
	}
	o.ActivityTimeout = cmpOr(o.ActivityTimeout, 10*time.Second)
	o.Window = cmpOr(o.Window, 3*o.ActivityTimeout)
	o.RampRate = cmpOr(o.RampRate, 4000)
	o.Fanout.defaults()
	o.Churn.defaults()
}

// Report is the whole measured run, as written to report.json.
type Report struct {
	Date            time.Time         `json:"date"`
	Command         string            `json:"command"`
	Machine         Machine           `json:"machine"`
	ActivityTimeout float64           `json:"activity_timeout_s"`
	WindowSeconds   float64           `json:"cpu_window_s"`
	Transports      []TransportReport `json:"transports"`
}

// Machine describes where the report was measured.
type Machine struct {
	CPUs      int     `json:"cpus"`
	MemoryGB  float64 `json:"memory_gb"`
	Kernel    string  `json:"kernel"`
	GoVersion string  `json:"go"`
	LoadAvg   string  `json:"loadavg_at_start"`
}

// TransportReport is one transport's figures.
type TransportReport struct {
	Transport string `json:"transport"`
	Steps     []Step `json:"steps"`
	// Fits of the steps against N: bytes (or cores) per connection.
	RSS        Fit           `json:"rss_fit"`
	RSSAfterGC Fit           `json:"rss_after_gc_fit"`
	Heap       Fit           `json:"heap_fit"`
	Stack      Fit           `json:"stack_fit"`
	CPU        Fit           `json:"cpu_cores_fit"`
	UserCPU    Fit           `json:"user_cores_fit"`
	SystemCPU  Fit           `json:"system_cores_fit"`
	Slab       Fit           `json:"slab_fit"`
	SUnreclaim Fit           `json:"sunreclaim_fit"`
	PerConn    ReportPerConn `json:"per_connection"`
	Fanout     *FanoutResult `json:"fanout,omitempty"`
	Churn      *ChurnResult  `json:"churn,omitempty"`
}

// ReportPerConn are the slopes in the units the targets use.
type ReportPerConn struct {
	RSS        float64 `json:"rss_bytes"`
	RSSAfterGC float64 `json:"rss_after_gc_bytes"`
	Heap       float64 `json:"heap_bytes"`
	Stack      float64 `json:"stack_bytes"`
	CPU        float64 `json:"cpu_us_per_s"`
	CPUDefault float64 `json:"cpu_us_per_s_at_120s"`
	// UserCPU and SystemCPU split CPU (µs/s at the measured timeout).
	UserCPU   float64 `json:"user_us_per_s"`
	SystemCPU float64 `json:"system_us_per_s"`
	// SlabPerSocket is the kernel slab slope divided by two: every
	// connection here is two sockets, the client's and the server's.
	SlabPerSocket       float64 `json:"slab_bytes_per_socket"`
	SUnreclaimPerSocket float64 `json:"sunreclaim_bytes_per_socket"`
}

// Step is the server at one connection count.
type Step struct {
	N       int       `json:"n"`
	Window  [2]Sample `json:"window"` // CPU window; Window[1] is the steady state
	AfterGC *Sample   `json:"after_gc,omitempty"`
	Cores   float64   `json:"cores"`
	// UserCores and SystemCores split Cores into roost's code and the
	// kernel's work for it (from /proc; zero when unknown).
	UserCores   float64 `json:"user_cores"`
	SystemCores float64 `json:"system_cores"`
	Pings       int64   `json:"client_pings"`
}

// Report measures every transport and writes Out/bench/report.json,
// results.md and rss.svg.
func RunReport(ctx context.Context, o ReportOptions) (*Report, error) {
	o.defaults()
	o.prepare()
	rep := &Report{Date: time.Now().UTC(), Command: o.Command, Machine: machine(),
		ActivityTimeout: o.ActivityTimeout.Seconds(), WindowSeconds: o.Window.Seconds()}
	for _, tr := range o.Transports {
		t, err := reportTransport(ctx, &o, tr)
		if err != nil {
			return nil, fmt.Errorf("bench: report, %s transport: %w", tr, err)
		}
		rep.Transports = append(rep.Transports, *t)
	}
	return rep, rep.Write(filepath.Join(o.Out, "bench"))
}

// reportTransport runs the idle steps, the fan-out and the churn against
// one freshly started server.
func reportTransport(ctx context.Context, o *ReportOptions, transport string) (*TransportReport, error) {
	srv, err := StartServer(ctx, ServerOptions{Transport: transport, ActivityTimeout: o.ActivityTimeout,
		Spawn: o.ServerSpawn, Stderr: o.Stderr})
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	tr := &TransportReport{Transport: srv.Transport}
	if err := idleSteps(ctx, o, srv.Target, tr); err != nil {
		return nil, err
	}
	if tr.Fanout, err = reportFanout(ctx, o, srv.Target); err != nil {
		return nil, err
	}
	if tr.Churn, err = reportChurn(ctx, o, srv.Target); err != nil {
		return nil, err
	}
	return tr, tr.fit(o.ActivityTimeout)
}

// idleSteps grows one fleet through every step and measures at each.
func idleSteps(ctx context.Context, o *ReportOptions, t Target, tr *TransportReport) error {
	top := o.Steps[len(o.Steps)-1]
	f, err := StartFleet(o.load(t, top, 1, 0, 0))
	if err != nil {
		return err
	}
	defer f.Close()
	p := NewProbe(t)
	pr := NewProgress(o.Progress)
	defer pr.Done()
	for _, n := range o.Steps {
		if n > 0 {
			if err := ramp(ctx, f, pr, n, o.RampRate); err != nil {
				return err
			}
		}
		step, err := measureStep(ctx, o, p, f, pr, tr.Transport, n)
		if err != nil {
			return err
		}
		tr.Steps = append(tr.Steps, *step)
	}
	return nil
}

// measureStep settles, measures CPU over the window, then RSS after a GC.
func measureStep(ctx context.Context, o *ReportOptions, p *Probe, f *Fleet, pr *Progress, transport string, n int) (*Step, error) {
	label := fmt.Sprintf("%s N=%d", transport, n)
	if _, err := settle(ctx, p, o.Settle, 10*o.Settle, func(s Sample) { pr.Printf("%s: settling, rss %s", label, mb(s.RSS)) }); err != nil {
		return nil, err
	}
	pings := f.Status().Pings
	a, b, err := window(ctx, p, o.Window, func(s Sample, left time.Duration) {
		pr.Printf("%s: cpu window, rss %s, %.0fs left", label, mb(s.RSS), left.Seconds())
	})
	if err != nil {
		return nil, err
	}
	st := &Step{N: n, Window: [2]Sample{a, b}, Cores: cpuRate(a, b), Pings: f.Status().Pings - pings}
	st.UserCores, st.SystemCores = splitRate(a, b)
	st.AfterGC, err = gcSample(ctx, p)
	return st, err
}

func reportFanout(ctx context.Context, o *ReportOptions, t Target) (*FanoutResult, error) {
	fo := o.Fanout
	fo.Common = o.Common
	f, err := StartFleet(fo.fleet(t))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return runFanout(ctx, &fo, t, f)
}

func reportChurn(ctx context.Context, o *ReportOptions, t Target) (*ChurnResult, error) {
	co := o.Churn
	co.Common = o.Common
	if err := waitConnections(ctx, NewProbe(t), 0); err != nil {
		return nil, err
	}
	f, err := StartFleet(co.fleet(t))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return runChurn(ctx, &co, t, f)
}

// fit computes the slopes over the steps.
func (tr *TransportReport) fit(activity time.Duration) error {
	var n, rss, gc, heap, stack, cores, user, system, slab, unrec []float64
	for _, s := range tr.Steps {
		st := s.Window[1]
		n = append(n, float64(s.N))
		rss, heap, stack = append(rss, st.RSS), append(heap, st.HeapInuse), append(stack, st.StackInuse)
		cores, user, system = append(cores, s.Cores), append(user, s.UserCores), append(system, s.SystemCores)
		slab, unrec = append(slab, st.Slab.Total), append(unrec, st.Slab.Unreclaimed)
		if s.AfterGC != nil {
			gc = append(gc, s.AfterGC.RSS)
		}
	}
	var err error
	fits := []struct {
		dst *Fit
		y   []float64
	}{{&tr.RSS, rss}, {&tr.Heap, heap}, {&tr.Stack, stack}, {&tr.CPU, cores}, {&tr.UserCPU, user}, {&tr.SystemCPU, system}, {&tr.Slab, slab}, {&tr.SUnreclaim, unrec}}
	if len(gc) == len(n) {
		fits = append(fits, struct {
			dst *Fit
			y   []float64
		}{&tr.RSSAfterGC, gc})
	}
	for _, f := range fits {
		if *f.dst, err = FitLine(n, f.y); err != nil {
			return err
		}
	}
	tr.PerConn = ReportPerConn{
		RSS: tr.RSS.Slope, RSSAfterGC: tr.RSSAfterGC.Slope, Heap: tr.Heap.Slope, Stack: tr.Stack.Slope,
		CPU: tr.CPU.Slope * 1e6, UserCPU: tr.UserCPU.Slope * 1e6, SystemCPU: tr.SystemCPU.Slope * 1e6, SlabPerSocket: tr.Slab.Slope / 2, SUnreclaimPerSocket: tr.SUnreclaim.Slope / 2,
	}
	tr.PerConn.CPUDefault = scaleCPU(tr.PerConn.CPU, activity.Seconds())
	return nil
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if kb, err := fieldKB(b, "MemTotal:"); err == nil {
			m.MemoryGB = kb / (1 << 20)
		}
	}
	return m
}

// Write writes report.json, results.md and rss.svg into dir.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	files := map[string][]byte{
		"report.json": append(js, '\n'),
		"results.md":  []byte(r.Markdown()),
		"rss.svg":     []byte(r.SVG()),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// LoadReport reads a report.json written by Write, so its tables and chart
// can be rendered again without measuring.
func LoadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	if len(r.Transports) == 0 {
		return nil, fmt.Errorf("bench: %s: no transports", path)
	}
	return &r, nil
}
