package webhook

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestFailingChannelHoldsBackNoOther: a backend that refuses every request
// naming one channel takes the others' events after one failed request,
// those that shared its request included, while the refused one is retried
// and, after retry_for, dropped, counted and logged.
func TestFailingChannelHoldsBackNoOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{answer: refusing("private-bad")}
		w := start(t, r, testSettings())
		w.ClientEvent("app", "private-bad", "client-x", "b0", "1.2", "")
		w.ClientEvent("app", "private-a", "client-x", "a0", "1.2", "")
		w.ClientEvent("app", "private-b", "client-x", "b0", "1.2", "")
		time.Sleep(time.Second)
		synctest.Wait()
		if got := r.dataOf("private-a"); !slices.Equal(got, []string{"a0"}) || r.triedWith("private-a") != 2 {
			t.Fatalf("private-a got %q in %d requests; want a0 after one refused request", got, r.triedWith("private-a"))
		}
		for i := 1; i < 10; i++ {
			w.ClientEvent("app", "private-a", "client-x", fmt.Sprint("a", i), "1.2", "")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		want := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
		if got := r.dataOf("private-a"); !slices.Equal(got, want) || r.triedWith("private-a") != 3 {
			t.Fatalf("private-a got %q in %d requests; want all, in order, in one more", got, r.triedWith("private-a"))
		}
		if len(r.dataOf("private-bad")) != 0 || len(r.dataOf("private-b")) != 1 {
			t.Fatalf("delivered %q", r.names())
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		st := w.Stats()[0]
		if st.Dropped[DropRetryExpired] != 1 || st.Sent != 11 || r.logLines("webhook request dropped") != 1 {
			t.Fatalf("stats %+v, %d drop lines; want the refused event dropped and logged once", st, r.logLines("webhook request dropped"))
		}
	})
}

// TestChannelOrderKeptThroughRetries: a channel's events wait behind its
// failing request and arrive in the order they happened, once it is
// answered; another channel's events are not held back meanwhile.
func TestChannelOrderKeptThroughRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := 0
		r := &receiver{}
		r.answer = func(events []wireEvent) int {
			if events[0].Channel == "private-a" && refused < 3 {
				refused++
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		}
		w := start(t, r, testSettings())
		var want []string
		for i := range 30 {
			d := fmt.Sprint(i)
			w.ClientEvent("app", "private-a", "client-x", d, "1.2", "")
			want = append(want, d)
			if i%10 == 0 {
				w.ClientEvent("app", "private-b", "client-x", d, "1.2", "")
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := r.dataOf("private-a"); !slices.Equal(got, want) {
			t.Fatalf("private-a got %q, want %q", got, want)
		}
		if got := r.dataOf("private-b"); !slices.Equal(got, []string{"0", "10", "20"}) {
			t.Fatalf("private-b got %q", got)
		}
		if first := slices.IndexFunc(r.requests, func(req []wireEvent) bool { return req[0].Channel == "private-a" }); first < 2 {
			t.Fatalf("requests %v: private-b's events must not wait for private-a's retries", r.requests)
		}
	})
}

// TestDownBackendIsSentABoundedNumber: a backend that refuses everything
// gets at most maxUnits requests per round of backoff from one URL, however
// many channels are waiting, and loses nothing of what fits the queue
// before retry_for.
func TestDownBackendIsSentABoundedNumber(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{answer: func([]wireEvent) int { return http.StatusInternalServerError }}
		s := testSettings()
		s.RetryFor = time.Hour
		w := start(t, r, s)
		for i := range 2000 { // 40 batches: more than maxUnits
			w.ClientEvent("app", fmt.Sprint("private-", i), "client-x", "d", "1.2", "")
		}
		time.Sleep(3 * time.Minute) // the backoff has reached its most
		synctest.Wait()
		before := r.tries()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := r.tries() - before; n > 2*maxUnits {
			t.Fatalf("%d requests in a minute, want at most %d (two per unit at the longest backoff)", n, 2*maxUnits)
		}
		st := w.Stats()[0]
		if st.Dropped[DropRetryExpired] != 0 || st.Queued == 0 {
			t.Fatalf("stats %+v: nothing may be dropped before retry_for", st)
		}
	})
}

// TestOldestCountsEventsBeingRetried: the oldest event's age counts an
// event whose request is being retried, and ends when it is dropped.
func TestOldestCountsEventsBeingRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{answer: refusing("private-bad")}
		s := testSettings()
		s.RetryFor = time.Minute
		w := start(t, r, s)
		queued := time.Now()
		w.ClientEvent("app", "private-bad", "client-x", "d", "1.2", "")
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if st := w.Stats()[0]; !st.Oldest.Equal(queued) || st.Queued != 0 {
			t.Fatalf("stats %+v; want the event being retried as the oldest, queued at %v", st, queued)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if st := w.Stats()[0]; !st.Oldest.IsZero() || st.Dropped[DropRetryExpired] != 1 {
			t.Fatalf("stats %+v; want no oldest once dropped", st)
		}
	})
}

// TestHeldBacklogGoesAtOnce: the events that waited behind a channel's
// failing request go out as soon as it is answered, in full batches, not a
// batch_wait apart.
func TestHeldBacklogGoesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{statuses: []int{http.StatusInternalServerError}}
		w := start(t, r, testSettings())
		w.ClientEvent("app", "private-a", "client-x", "0", "1.2", "")
		time.Sleep(300 * time.Millisecond) // the first request has failed
		for i := 1; i <= 120; i++ {
			w.ClientEvent("app", "private-a", "client-x", fmt.Sprint(i), "1.2", "")
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := len(r.dataOf("private-a")); got != 121 || len(r.at) != 5 {
			t.Fatalf("%d events in %d requests, want 121 in 5 (a refused one, then 1, 50, 50, 20)", got, len(r.at))
		}
		if r.at[4].Sub(r.at[1]) != 0 {
			t.Fatalf("requests at %v: the backlog must go at once after the retry", r.at)
		}
	})
}
