package server

import (
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/metrics"
)

// DebugEnv names the environment variable that turns on the debug
// endpoints: ROOSTDEBUG=endpoints serves /debug/pprof/ and POST /debug/gc.
// They are off by default because a profile or a forced GC is expensive and
// reveals internals; `roost bench report` turns them on for the servers it
// starts. Like GODEBUG, it is a process switch, not a configuration
// setting, so it lives outside the ROOST_* names the config loader reads.
const DebugEnv = "ROOSTDEBUG"

// withMetrics wraps the node's routes with GET /metrics and, when DebugEnv
// asks for them, the debug endpoints. Every other request goes to inner.
func (s *Server) withMetrics(inner *http.ServeMux) *http.ServeMux {
	reg := metrics.NewRegistry(metrics.SourceFunc(func(snap *metrics.Snapshot) {
		s.snapshot(snap)
		snap.HandshakesRefused = s.refused.Load()
	}), Version)
	outer := http.NewServeMux()
	outer.Handle("GET /metrics", metrics.Handler(reg))
	outer.Handle("/", inner)
	if debugEnabled(os.Getenv(DebugEnv)) {
		mountDebug(outer)
	}
	return outer
}

// snapshot fills snap from the transports' and the hub's counters.
func (s *Server) snapshot(snap *metrics.Snapshot) {
	snap.Channels, snap.Subscriptions = s.hub.Totals()
	if s.poller != nil {
		snap.Transports = append(snap.Transports, transportCounts("epoll", &s.stats))
	}
	snap.Transports = append(snap.Transports, transportCounts("portable", s.portable.Stats()))
	if s.cluster != nil {
		snap.Cluster = &metrics.Cluster{Up: s.cluster.Ready() == nil, Dropped: s.cluster.Dropped()}
	}
	s.webhookMetrics(snap)
}

// The transports' close reasons and the metrics' reason labels are the same
// list in the same order; this fails to compile if their lengths part.
var _ [metrics.NumReasons]struct{} = [connstats.NumReasons]struct{}{}

// transportCounts turns a transport's counters into its metrics.
func transportCounts(name string, st *connstats.Stats) metrics.Transport {
	t := metrics.Transport{
		Name: name, Open: st.Open.Load(), Accepted: st.Accepted.Load(),
		MessagesIn: st.MessagesIn.Load(), BytesIn: st.BytesIn.Load(),
		FramesOut: st.FramesOut.Load(), BytesOut: st.BytesOut.Load(),
	}
	for r := range t.Closed {
		t.Closed[r] = st.Closed[r].Load()
	}
	return t
}

// debugEnabled reports whether a DebugEnv value (a comma-separated list)
// names "endpoints".
func debugEnabled(v string) bool {
	return slices.Contains(strings.Split(v, ","), "endpoints")
}

// mountDebug serves the Go profiler and a forced GC, for `roost bench`.
func mountDebug(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("POST /debug/gc", forceGC)
}

// GCReport is what POST /debug/gc answers: the runtime's memory after a
// full collection with the freed pages returned to the OS.
type GCReport struct {
	HeapInuse    uint64 `json:"heap_inuse"`
	StackInuse   uint64 `json:"stack_inuse"`
	HeapReleased uint64 `json:"heap_released"`
	Sys          uint64 `json:"sys"`
	Goroutines   int    `json:"goroutines"`
}

// forceGC runs runtime.GC and debug.FreeOSMemory, so that RSS can be read
// without the garbage a steady state carries (docs/design.md, "Performance").
func forceGC(w http.ResponseWriter, _ *http.Request) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(GCReport{
		HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, HeapReleased: ms.HeapReleased,
		Sys: ms.Sys, Goroutines: runtime.NumGoroutine(),
	})
}
