package webhook

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// answer200 is a backend that accepts every request at once, so a benchmark
// measures roost's side: the intake, encoding, batching, the body, the
// signature and the HTTP client.
type answer200 struct{}

func (answer200) RoundTrip(req *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, req.Body)
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// never is a backend that never answers.
type never struct{}

func (never) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

func benchHooks(b *testing.B, t http.RoundTripper, s config.Webhooks) *Webhooks {
	w := New(Options{Apps: []config.App{{ID: "app", Key: testKey, Secret: testSecret,
		Webhooks: []config.Webhook{{URL: "http://backend.example/hooks"}}}}, Settings: s, Transport: t,
		Logger: slog.New(slog.DiscardHandler)})
	w.Start(nil, nil)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		w.Close(ctx)
	})
	return w
}

// BenchmarkClientEventDelivered is the CPU and allocations of one
// client_event from the hub's report to a signed request answered 200, in
// batches of 50.
func BenchmarkClientEventDelivered(b *testing.B) {
	s := testSettings()
	s.BatchWait = time.Millisecond
	w := benchHooks(b, answer200{}, s)
	data := strings.Repeat("x", 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w.ClientEvent("app", "private-chat", "client-typing", data, "123.456", "")
		if (i+1)%(maxIntake/2) == 0 || i == b.N-1 {
			for w.Stats()[0].Sent < int64(i+1) {
				time.Sleep(time.Millisecond)
			}
		}
	}
	if st := w.Stats()[0]; st.Dropped != [numDrops]int64{} {
		b.Fatalf("events dropped: %+v", st)
	}
}

// waitQueued waits until at least n events are queued, so the benchmark
// never outruns the intake's bound.
func waitQueued(w *Webhooks, n int64) {
	for w.Stats()[0].Queued < n {
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkObserveNoWebhooks is what a report costs an app without
// webhooks: the hot paths call the observer on every client event.
func BenchmarkObserveNoWebhooks(b *testing.B) {
	w := benchHooks(b, answer200{}, testSettings())
	b.ReportAllocs()
	for range b.N {
		w.ClientEvent("other", "private-chat", "client-typing", "d", "123.456", "")
	}
}

// BenchmarkQueuedEventMemory reports the heap one queued event holds while
// its URL does not answer (the queue's bound is set above what b.N needs).
func BenchmarkQueuedEventMemory(b *testing.B) {
	s := testSettings()
	s.QueueBytes = 1 << 30
	w := benchHooks(b, never{}, s)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for i := range b.N {
		w.ChannelOccupied("app", "presence-room-1234")
		if (i+1)%(maxIntake/2) == 0 || i == b.N-1 {
			waitQueued(w, int64(i+1-s.BatchMax))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/queued-event")
}
