package webhook

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// startNode returns Webhooks for app "app", answered by r, that keep their
// delayed events in p: one node of a cluster whose nodes share p.
func startNode(t *testing.T, r *receiver, p Pending, node string) *Webhooks {
	r.t = t
	w := New(Options{
		Apps: []config.App{{ID: "app", Key: testKey, Secret: testSecret,
			Webhooks: []config.Webhook{{URL: "http://backend.example/hooks"}}}},
		Settings: testSettings(), Node: node, Transport: r, Logger: slog.New(r),
	})
	w.Start(p, nil)
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

// TestOccupiedThenVacatedOnASharedPending: on a Pending a cluster shares, a
// channel occupied and vacated on one node within a second sends both, in
// order, as one node would.
func TestOccupiedThenVacatedOnASharedPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &receiver{}
		a := startNode(t, r, newMemoryPending(), "a")
		a.ChannelOccupied("app", "c")
		time.Sleep(300 * time.Millisecond)
		a.ChannelVacated("app", "c")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got, want := r.names(), []string{"channel_occupied c", "channel_vacated c"}; !slices.Equal(got, want) {
			t.Fatalf("delivered %q, want %q", got, want)
		}
	})
}
