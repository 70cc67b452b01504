package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// TestFanoutKeepsOrder: every subscriber receives every publish, in the
// order published, including one that reads nothing until the end, whose
// socket fills so that later frames wait in its backlog behind the rest of
// an earlier one.
func TestFanoutKeepsOrder(t *testing.T) {
	eachFanoutTransport(t, func(t *testing.T, tr string) {
		// The first subscriber's writes stay blocked for the whole test: a
		// write timeout far beyond it keeps a loaded machine from closing it.
		s := startServer(t, tr, func(c *config.Config) {
			c.Limits.WriteBacklog, c.Limits.WriteTimeout = 64<<20, time.Hour
		})
		const subscribers, publishes = 4, 100
		clients := make([]*testutil.Client, subscribers)
		for i := range clients {
			clients[i] = s.connect(t)
			clients[i].Subscribe("ordered")
		}
		pad := strings.Repeat("p", 64<<10)
		for i := range publishes {
			pub := hub.Publication{Channels: []string{"ordered"}, Event: "e", Data: strconv.Itoa(i) + pad}
			if err := s.Hub().Publish("app-id", pub); err != nil {
				t.Fatal(err)
			}
			for _, c := range clients[1:] { // the first reads only at the end
				c.Expect("e")
			}
		}
		for n, c := range clients {
			if n == 0 {
				for range publishes {
					c.Expect("e")
				}
			}
			for i, data := range c.Events("ordered", "e") {
				if !strings.HasPrefix(data, strconv.Itoa(i)+"p") {
					t.Fatalf("subscriber %d: event %d carries %.12q...", n, i, data)
				}
			}
		}
	})
}
