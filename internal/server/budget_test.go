package server

import (
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// TestBacklogBudgetShedsNonReaders: with a per-connection cap too large to
// act, clients that never read are closed with 4100 once their backlogs
// together pass limits.write_backlog_total, and a client that reads gets
// every event meanwhile; once they are gone the budget holds nothing for
// them.
func TestBacklogBudgetShedsNonReaders(t *testing.T) {
	eachFanoutTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) {
			c.Limits.WriteBacklog = 64 << 20
			c.Limits.WriteBacklogTotal = 256 << 10
			c.Limits.SendBuffer = 16 << 10
		})
		var slow []*testutil.Client
		for range 4 {
			c := s.connect(t)
			c.Subscribe("firehose")
			slow = append(slow, c)
		}
		fast := s.connect(t)
		fast.Subscribe("firehose")
		data := strings.Repeat("x", 8<<10)
		testutil.Eventually(t, waitLimit, "the non-readers to be shed", func() bool {
			for range 16 {
				s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
				fast.Expect("e")
			}
			return channelOf(s, "firehose").SubscriptionCount == 1
		})
		for i, c := range slow {
			if got := c.CloseCode(); got != ws.CloseCode(pusher.OverCapacity) {
				t.Errorf("non-reader %d: close code %d, want %d", i, got, pusher.OverCapacity)
			}
			c.Conn.NetConn().Close()
		}
		testutil.Eventually(t, waitLimit, "the budget to give back what the non-readers held", func() bool {
			return s.budget.Queued() == 0
		})
	})
}
