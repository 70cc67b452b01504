package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/admission"
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

// metricsRoutes adds GET /metrics and, when DebugEnv asks for them, the
// debug endpoints to mux, behind metrics.token when it is set, and returns
// mux.
func (s *Server) metricsRoutes(mux *http.ServeMux) *http.ServeMux {
	reg := metrics.NewRegistry(metrics.SourceFunc(s.snapshot), Version)
	guard := bearer(s.cfg.Metrics.Token)
	mux.Handle("GET /metrics", guard(metrics.Handler(reg)))
	if debugEnabled(os.Getenv(DebugEnv)) {
		debug := http.NewServeMux()
		mountDebug(debug)
		mux.Handle("/debug/", guard(debug))
	}
	return mux
}

// bearer returns a wrapper that lets through only requests carrying
// "Authorization: Bearer <token>" (RFC 6750 section 2.1), compared in
// constant time; others get 401. An empty token lets everything through.
func bearer(token string) func(http.Handler) http.Handler {
	if token == "" {
		return func(h http.Handler) http.Handler { return h }
	}
	want := sha256.Sum256([]byte("Bearer " + token))
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="roost metrics"`)
				http.Error(w, "roost: metrics.token is set: send Authorization: Bearer <token>", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// snapshot fills snap from the transports' and the hub's counters.
func (s *Server) snapshot(snap *metrics.Snapshot) {
	snap.Channels, snap.Subscriptions = s.hub.Totals()
	snap.MaxConnections = s.door.Caps().MaxConnections
	snap.HandshakeTimeouts = s.timeouts.Load()
	snap.WriteBacklog, snap.WriteBacklogLimit = s.budget.Queued(), s.budget.Limit()
	for _, c := range s.carriers {
		s.transportMetrics(snap, c.kind, c.stats)
	}
	if s.cluster != nil {
		snap.Cluster = &metrics.Cluster{Up: s.cluster.Ready() == nil, Dropped: s.cluster.Dropped(), Duplicates: s.cluster.Duplicates()}
	}
	s.webhookMetrics(snap)
	snap.Config = s.loaded.get()
}

// transportMetrics adds tr's counters and refusals to snap.
func (s *Server) transportMetrics(snap *metrics.Snapshot, tr admission.Transport, stats *connstats.Stats) {
	snap.Transports = append(snap.Transports, metrics.Transport{Name: tr.String(), Counts: stats.Read()})
	refused := s.door.Refused(tr)
	for r := admission.Connections; r < admission.NumReasons; r++ {
		snap.Refused = append(snap.Refused, metrics.Refusal{Transport: tr.String(), Reason: r.String(), Count: refused[r]})
		snap.HandshakesRefused += refused[r]
	}
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
