package webhook

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
)

func TestEventJSONIsPushers(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{Name: config.WebhookChannelOccupied, Channel: "c"}, `{"name":"channel_occupied","channel":"c"}`},
		{Event{Name: config.WebhookChannelVacated, Channel: "c"}, `{"name":"channel_vacated","channel":"c"}`},
		{Event{Name: config.WebhookMemberAdded, Channel: "presence-c", UserID: "u\"1"}, `{"name":"member_added","channel":"presence-c","user_id":"u\"1"}`},
		{Event{Name: config.WebhookMemberRemoved, Channel: "presence-c", UserID: "u"}, `{"name":"member_removed","channel":"presence-c","user_id":"u"}`},
		{Event{Name: config.WebhookClientEvent, Channel: "private-c", Event: "client-x", Data: `{"a":1}`, SocketID: "1.2"},
			`{"name":"client_event","channel":"private-c","event":"client-x","data":"{\"a\":1}","socket_id":"1.2"}`},
		{Event{Name: config.WebhookClientEvent, Channel: "presence-c", Event: "client-x", Data: "", SocketID: "1.2", UserID: "u"},
			`{"name":"client_event","channel":"presence-c","event":"client-x","data":"","socket_id":"1.2","user_id":"u"}`},
		{Event{Name: config.WebhookCacheMiss, Channel: "cache-c"}, `{"name":"cache_miss","channel":"cache-c"}`},
		{Event{Name: config.WebhookSubscriptionCount, Channel: "c", Count: 3}, `{"name":"subscription_count","channel":"c","subscription_count":3}`},
	}
	for _, tt := range tests {
		if got := string(tt.ev.AppendJSON(nil)); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	body := Body(1700000000000, [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)})
	if want := `{"time_ms":1700000000000,"events":[{"a":1},{"b":2}]}`; string(body) != want {
		t.Errorf("body %s, want %s", body, want)
	}
}

// TestSignIsHMACSHA256Hex checks Sign against the HMAC-SHA256 test vector
// of RFC 4231's style ("key", the quick brown fox).
func TestSignIsHMACSHA256Hex(t *testing.T) {
	got := Sign("key", []byte("The quick brown fox jumps over the lazy dog"))
	if want := "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

// TestEveryEventReachesTheURL: one of each event, in the order reported,
// in one batched request.
func TestEveryEventReachesTheURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		w.ChannelOccupied("app", "presence-c")
		w.MemberAdded("app", "presence-c", "u")
		w.ClientEvent("app", "presence-c", "client-x", "d", "1.2", "u")
		w.SubscriptionCount("app", "c", 2)
		w.CacheMiss("app", "cache-c")
		w.ChannelOccupied("other-app", "c")      // no webhooks
		w.ChannelOccupied("app", "#watchlist-u") // roost's own
		time.Sleep(time.Second)
		synctest.Wait()
		w.MemberRemoved("app", "presence-c", "u")
		w.ChannelVacated("app", "presence-c")
		time.Sleep(4 * time.Second)
		synctest.Wait()
		want := []string{"channel_occupied presence-c", "member_added presence-c u", "client_event presence-c u",
			"subscription_count c", "cache_miss cache-c", "member_removed presence-c u", "channel_vacated presence-c"}
		if got := r.names(); !slices.Equal(got, want) {
			t.Fatalf("delivered %q\nwant      %q", got, want)
		}
		if len(r.requests) != 2 {
			t.Errorf("%d requests, want 2 (one batch before the delay, one after)", len(r.requests))
		}
		if s := w.Stats()[0]; s.Sent != 7 || s.FailedAttempts != 0 || s.Queued != 0 {
			t.Errorf("stats %+v", s)
		}
	})
}

// TestComebackWithinDelaySendsNothing: a reload (vacated then occupied, a
// member leaving and rejoining) within the delay sends neither event; a
// second leave is sent at the end of its own delay, not the first's.
func TestComebackWithinDelaySendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		w.ChannelVacated("app", "c")
		w.MemberRemoved("app", "presence-c", "u")
		time.Sleep(2 * time.Second)
		w.ChannelOccupied("app", "c")
		w.MemberAdded("app", "presence-c", "u")
		time.Sleep(500 * time.Millisecond)
		w.ChannelVacated("app", "c")
		time.Sleep(2900 * time.Millisecond) // the first delay is long over
		synctest.Wait()
		if got := r.names(); len(got) != 0 {
			t.Fatalf("delivered %q during the second delay, want nothing", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got, want := r.names(), []string{"channel_vacated c"}; !slices.Equal(got, want) {
			t.Fatalf("delivered %q, want %q", got, want)
		}
	})
}

// TestBatchesKeepOrderAndSize: 120 events of three channels go out as 50,
// 50 and 20, each channel's in the order they happened.
func TestBatchesKeepOrderAndSize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		for i := range 120 {
			w.ClientEvent("app", fmt.Sprintf("private-c%d", i%3), "client-x", fmt.Sprint(i), "1.2", "")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		last := map[string]int{}
		var sizes []int
		for _, req := range r.requests {
			sizes = append(sizes, len(req))
			for _, e := range req {
				i, _ := strconv.Atoi(e.Data)
				if prev, ok := last[e.Channel]; ok && i != prev+3 {
					t.Fatalf("%s: event %d after %d: out of order or lost", e.Channel, i, prev)
				}
				last[e.Channel] = i
			}
		}
		if !slices.Equal(sizes, []int{50, 50, 20}) || last["private-c2"] != 119 {
			t.Fatalf("batch sizes %v, last events %v; want [50 50 20], all 120", sizes, last)
		}
	})
}

// TestBatchWaitsAtMostBatchWait: a lone event is sent batch_wait after it
// came, not before.
func TestBatchWaitsAtMostBatchWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		w.CacheMiss("app", "cache-c")
		time.Sleep(249 * time.Millisecond)
		synctest.Wait()
		if len(r.names()) != 0 {
			t.Fatal("sent before batch_wait")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if len(r.names()) != 1 {
			t.Fatal("not sent at batch_wait")
		}
	})
}

// TestFailuresAreRetriedThenDelivered: 500, 500, 200 delivers the event
// once, after two failed attempts and two retries.
func TestFailuresAreRetriedThenDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{statuses: []int{500, 500}}
		w := start(t, r, testSettings())
		w.CacheMiss("app", "cache-c")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := r.names(); !slices.Equal(got, []string{"cache_miss cache-c"}) {
			t.Fatalf("delivered %q", got)
		}
		s := w.Stats()[0]
		if s.Sent != 1 || s.FailedAttempts != 2 || s.Retried != 2 || s.Requests != 3 {
			t.Fatalf("stats %+v, want 1 sent, 2 failed, 2 retried, 3 requests", s)
		}
	})
}

// TestRetriesStopAfterRetryFor: a URL that never answers costs each request
// the timeout; after retry_for the events are dropped and counted.
func TestRetriesStopAfterRetryFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{statuses: slices.Repeat([]int{0}, 1000)}
		s := testSettings()
		s.RetryFor = 3 * time.Minute
		w := start(t, r, s)
		w.CacheMiss("app", "cache-c")
		w.CacheMiss("app", "cache-d")
		time.Sleep(time.Minute)
		synctest.Wait()
		if st := w.Stats()[0]; st.Dropped[DropRetryExpired] != 0 || st.FailedAttempts < 5 {
			t.Fatalf("before retry_for: %+v", st)
		}
		time.Sleep(2*time.Minute + 10*time.Second)
		synctest.Wait()
		st := w.Stats()[0]
		if st.Dropped[DropRetryExpired] != 2 || st.Sent != 0 {
			t.Fatalf("after retry_for: %+v, want 2 dropped for retry_expired", st)
		}
		// At most 190 s of failures: logged at the first, then at most once
		// a minute.
		if n := r.logs.Load(); n > 4 || n >= st.FailedAttempts {
			t.Fatalf("%d failures logged %d times, want once per minute", st.FailedAttempts, n)
		}
	})
}

// TestQueueIsBoundedInBytes: behind a URL that never answers, the app's
// queue keeps at most queue_bytes; the oldest events are dropped and
// counted.
func TestQueueIsBoundedInBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{statuses: slices.Repeat([]int{0}, 1000)}
		s := testSettings()
		s.QueueBytes = 10 << 10
		w := start(t, r, s)
		for i := range 1000 {
			w.ClientEvent("app", "private-c", "client-x", fmt.Sprintf("%08d", i), "1.2", "")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		a := w.current("app")
		if used := a.budget.used.Load(); used > int64(s.QueueBytes) {
			t.Fatalf("queue holds %d bytes, over %d", used, s.QueueBytes)
		}
		st := w.Stats()[0]
		if st.Dropped[DropQueueFull] == 0 || st.Dropped[DropQueueFull]+st.Queued+int64(s.BatchMax) != 1000 {
			t.Fatalf("stats %+v: every event must be queued, in flight or dropped", st)
		}
		if first := front(a.senders[0].q); !containsData(first, st.Dropped[DropQueueFull]+int64(s.BatchMax)) {
			t.Fatalf("oldest queued event %s: the oldest ones must be the ones dropped", first)
		}
	})
}

// front returns the oldest event q holds: held behind a busy channel, or
// else not looked at yet.
func front(q *queue) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, ch := range q.order {
		if h := q.held[ch]; len(h) > 0 {
			return h[0].ev
		}
	}
	if len(q.items) > 0 {
		return q.items[0].ev
	}
	return nil
}

func containsData(ev []byte, i int64) bool {
	return slices.Contains([]string{string(ev)}, fmt.Sprintf(`{"name":"client_event","channel":"private-c","event":"client-x","data":"%08d","socket_id":"1.2"}`, i))
}

// TestEventTypesFilter: a URL gets only the event types it lists.
func TestEventTypesFilter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings(), config.WebhookMemberAdded)
		w.ChannelOccupied("app", "presence-c")
		w.MemberAdded("app", "presence-c", "u")
		w.CacheMiss("app", "cache-c")
		time.Sleep(time.Second)
		synctest.Wait()
		if got := r.names(); !slices.Equal(got, []string{"member_added presence-c u"}) {
			t.Fatalf("delivered %q", got)
		}
	})
}

// TestCloseSendsDelayedEvents: a stopping node lets held events wait out
// their delay, then sends them and what is queued.
func TestCloseSendsDelayedEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		w.ChannelVacated("app", "c")
		w.CacheMiss("app", "cache-c")
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		w.Close(ctx)
		if got := r.names(); len(got) != 2 {
			t.Fatalf("delivered %q on close, want both events", got)
		}
		if waited := time.Since(start); waited < 3*time.Second {
			t.Fatalf("Close took %v: it must let the vacated event wait out its delay", waited)
		}
	})
}

// TestCloseKeepsComebacksCancelling: while a node stops, a comeback within
// the delay still cancels a held event, so a rolling restart whose clients
// reconnect elsewhere sends nothing.
func TestCloseKeepsComebacksCancelling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		w := start(t, r, testSettings())
		w.ChannelVacated("app", "c")
		synctest.Wait()
		go w.Close(context.Background())
		time.Sleep(time.Second)
		w.pending.Apply([]Op{{Kind: OpCancel, Key: "vacated:app:c"}}) // the comeback, seen by another node
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if got := r.names(); len(got) != 0 {
			t.Fatalf("delivered %q, want nothing", got)
		}
	})
}

// TestMemoryPendingRunsABatchInOrder: holds, cancels and takes in one batch
// see each other's effects, and a take only takes its own hold.
func TestMemoryPendingRunsABatchInOrder(t *testing.T) {
	p := newMemoryPending()
	ops := []Op{{Kind: OpHold, Key: "k", Token: "1"}, {Kind: OpCancel, Key: "k"}, {Kind: OpCancel, Key: "k"},
		{Kind: OpHold, Key: "k", Token: "2"}, {Kind: OpHold, Key: "k", Token: "3"},
		{Kind: OpTake, Key: "k", Token: "2"}, {Kind: OpTake, Key: "k", Token: "3"}, {Kind: OpTake, Key: "k", Token: "3"}}
	p.Apply(ops)
	var got []bool
	for _, op := range ops {
		got = append(got, op.Found)
	}
	if want := []bool{false, true, false, false, false, false, true, false}; !slices.Equal(got, want) {
		t.Fatalf("found %v, want %v", got, want)
	}
}

// TestCloseDoesNotRetry: a stopping node tries a failing backend once and
// drops the batch, instead of retrying until the shutdown times out.
func TestCloseDoesNotRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{statuses: slices.Repeat([]int{500}, 100)}
		w := start(t, r, testSettings())
		w.CacheMiss("app", "cache-c")
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		w.Close(ctx)
		if took, st := time.Since(start), w.Stats()[0]; took > time.Second || st.Dropped[DropShutdown] != 1 {
			t.Fatalf("Close took %v with stats %+v; want at once, 1 dropped for shutdown", took, st)
		}
	})
}
