package bench

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReceiverChecksSignatures: the bench's receiver counts the events of a
// request signed with the app secret, and refuses (and counts) one that is
// not, so that a server signing wrongly cannot pass the bench.
func TestReceiverChecksSignatures(t *testing.T) {
	r, err := startReceiver("k", "s")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	body := `{"time_ms":1,"events":[{"name":"channel_occupied","channel":"a"},{"name":"cache_miss","channel":"a"}]}`
	post := func(sig string) int {
		req, _ := http.NewRequest(http.MethodPost, r.URL(), strings.NewReader(body))
		req.Header.Set("X-Pusher-Key", "k")
		req.Header.Set("X-Pusher-Signature", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(r.sign([]byte(body))); code != http.StatusOK || r.events.Load() != 2 {
		t.Fatalf("signed request: %d, %d events counted", code, r.events.Load())
	}
	if code := post(r.sign([]byte(body + " "))); code != http.StatusUnauthorized || r.bad.Load() != 1 || r.events.Load() != 2 {
		t.Fatalf("badly signed request: %d, %d bad, %d events", code, r.bad.Load(), r.events.Load())
	}
}

// TestWebhookPerEventCPU checks the arithmetic: the extra cores of each
// round's run with webhooks over its run without, per event delivered per
// second, and the median over rounds.
func TestWebhookPerEventCPU(t *testing.T) {
	t0 := time.Unix(0, 0)
	win := [2]Sample{{At: t0}, {At: t0.Add(10 * time.Second)}}
	runs := []WebhookRun{
		{Cores: 0.10, Window: win}, {Webhooks: true, Cores: 0.12, Events: 10000, Window: win}, // 0.02 / 1000/s = 20 µs
		{Cores: 0.10, Window: win}, {Webhooks: true, Cores: 0.11, Events: 10000, Window: win}, // 10 µs
		{Cores: 0.10, Window: win}, {Webhooks: true, Cores: 0.13, Events: 10000, Window: win}, // 30 µs
	}
	runs[1].Queue = &[2]Sample{{HeapInuse: 1e6, RSS: 2e6}, {HeapInuse: 3e6, RSS: 5e6, HooksQueued: 10000}}
	r := &WebhookResult{Runs: runs}
	r.compute(2)
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	if !near(r.CPUPerEvent, 20) || len(r.PerRound) != 3 || !near(r.EventsPerSecond, 1000) {
		t.Fatalf("per event %v µs by round %v, %v events/s; want 20 µs median, 1000/s", r.CPUPerEvent, r.PerRound, r.EventsPerSecond)
	}
	if !near(r.HeapPerQueued, 200) || !near(r.RSSPerQueued, 300) || r.Queued != 10000 {
		t.Fatalf("queued %v: %v heap, %v RSS per event; want 200 and 300", r.Queued, r.HeapPerQueued, r.RSSPerQueued)
	}
}

// TestWebhookOutboxAgainstTheSameOff: with a backend each round has a
// third run, with the outbox, measured against the same run without
// webhooks as the run with webhooks and no outbox.
func TestWebhookOutboxAgainstTheSameOff(t *testing.T) {
	t0 := time.Unix(0, 0)
	win := [2]Sample{{At: t0}, {At: t0.Add(10 * time.Second)}}
	var runs []WebhookRun
	for _, extra := range []float64{0.01, 0.02} { // the outbox's extra cores: 10 and 20 µs per event
		runs = append(runs, WebhookRun{Cores: 0.10, Window: win},
			WebhookRun{Webhooks: true, Cores: 0.12, Events: 10000, Window: win, LatencyP50: 5, LatencyP99: 9},
			WebhookRun{Webhooks: true, Outbox: true, Cores: 0.12 + extra, Events: 10000, Window: win, LatencyP50: 6, LatencyP99: 12})
	}
	r := &WebhookResult{Runs: runs}
	r.compute(3)
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	if !near(r.CPUPerEvent, 20) || len(r.PerRound) != 2 || r.LatencyP50 != 5 {
		t.Fatalf("without the outbox: %v µs by round %v, p50 %v; want 20 µs, 2 rounds, 5 ms", r.CPUPerEvent, r.PerRound, r.LatencyP50)
	}
	if o := r.Outbox; o == nil || !near(o.CPUPerEvent, 35) || o.LatencyP99 != 12 || !near(o.OnCores, 0.135) {
		t.Fatalf("with the outbox: %+v; want 35 µs (median of 30 and 40), p99 12 ms, 0.135 cores", o)
	}
}

// TestLatenciesAreTheClientEvents: the receiver measures each client event
// from the sent_ns in its data to the request's arrival, and nothing else.
func TestLatenciesAreTheClientEvents(t *testing.T) {
	sent := time.Unix(1700000000, 0)
	data, _ := json.Marshal(fmt.Sprintf(`{"n":1,"sent_ns":%d,"text":"bench"}`, sent.UnixNano()))
	events := []json.RawMessage{
		json.RawMessage(`{"name":"client_event","channel":"presence-c","data":` + string(data) + `}`),
		json.RawMessage(`{"name":"channel_occupied","channel":"presence-c"}`),
	}
	var l latencies
	l.record(events, sent.Add(40*time.Millisecond))
	if got := l.take(); len(got) != 1 || got[0] != 0.04 {
		t.Fatalf("latencies %v, want [0.04]", got)
	}
	if got := l.take(); len(got) != 0 {
		t.Fatalf("a second take gave %v, want nothing", got)
	}
	if q := quantile([]float64{5, 1, 4, 2, 3}, 0.5); q != 3 {
		t.Fatalf("median %v, want 3", q)
	}
}
