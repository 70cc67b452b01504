package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder keeps every record it is given.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}

// lines returns each record as its message and its repeated count (0 if
// none).
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		n := int64(0)
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == RepeatedKey {
				n = a.Value.Int64()
			}
			return true
		})
		out = append(out, rec.Message+"/"+itoa(n))
	}
	return out
}

func itoa(n int64) string { return slog.Int64Value(n).String() }

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRepeatsAreCountedOncePerInterval: a burst of one message is one line,
// then one line with the count when the interval ends; another message is
// not held back by the first.
func TestRepeatsAreCountedOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		log := slog.New(New(rec, time.Second))
		for range 1000 {
			log.Warn("accept failed", "err", "too many open files")
		}
		log.Warn("other")
		if got, want := rec.lines(), []string{"accept failed/0", "other/0"}; !equal(got, want) {
			t.Fatalf("during the burst: %q, want %q", got, want)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		want := []string{"accept failed/0", "other/0", "accept failed/999"}
		if got := rec.lines(); !equal(got, want) {
			t.Fatalf("after the interval: %q, want %q", got, want)
		}
		log.Warn("accept failed")
		if got := rec.lines(); len(got) != 4 || got[3] != "accept failed/0" {
			t.Fatalf("a new interval: %q", got)
		}
	})
}

// TestCountRidesOnTheNextRecord: a record after the interval carries the
// count itself, and no separate summary follows.
func TestCountRidesOnTheNextRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		h := New(rec, time.Second)
		now := time.Now()
		for i := range 3 {
			r := slog.NewRecord(now.Add(time.Duration(i)*time.Millisecond), slog.LevelWarn, "slow consumer closed", 0)
			h.Handle(context.Background(), r)
		}
		h.Handle(context.Background(), slog.NewRecord(now.Add(time.Second), slog.LevelWarn, "slow consumer closed", 0))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		want := []string{"slow consumer closed/0", "slow consumer closed/2"}
		if got := rec.lines(); !equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// TestLevelsAreSeparate: the same message at two levels is two messages.
func TestLevelsAreSeparate(t *testing.T) {
	rec := &recorder{}
	log := slog.New(New(rec, time.Hour).WithAttrs([]slog.Attr{slog.String("a", "b")}))
	log.Warn("x")
	log.Error("x")
	if got := rec.lines(); len(got) != 2 {
		t.Fatalf("got %q", got)
	}
}
