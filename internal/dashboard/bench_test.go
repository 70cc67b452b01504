package dashboard

import (
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

type nopSub struct{ seq uint64 }

func (n *nopSub) SocketSeq() uint64       { return n.seq }
func (n *nopSub) Deliver(*hub.Frame)      {}
func (n *nopSub) Terminate()              {}
func (n *nopSub) Moved(*hub.Channel, int) {}

// BenchmarkPublishConsole measures one publish to a channel with one
// subscriber, through the hub, with no console open (the hub's only cost is
// loading a nil pointer), with a console open on another app (a filter
// check), and with a console watching the channel (an event built and
// queued).
func BenchmarkPublishConsole(b *testing.B) {
	for _, tc := range []struct {
		name  string
		watch string // app a console watches; "" is no console
	}{{"none", ""}, {"other-app", "other"}, {"watching", "app"}} {
		b.Run(tc.name, func(b *testing.B) {
			h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 1)
			h.SetShard(0, inline{h})
			h.Attach(h.Acquire("app", "news"), 0, &nopSub{seq: 1})
			c := newConsole(h, 1<<30, time.Now)
			if tc.watch != "" {
				w := c.watch(tc.watch, "")
				done := make(chan struct{})
				go func() {
					for {
						select {
						case <-w.events:
						case <-done:
							return
						}
					}
				}()
				b.Cleanup(func() { close(done); c.unwatch(w) })
			}
			p := hub.Publication{Channels: []string{"news"}, Event: "update", Data: `{"n":1}`}
			b.ReportAllocs()
			for b.Loop() {
				h.Publish("app", p)
			}
		})
	}
}
