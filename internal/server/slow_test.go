package server

import (
	"strings"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// TestSlowConsumerIsClosed: a client that stops reading is closed once its
// backlog passes the cap, and the others keep receiving.
func TestSlowConsumerIsClosed(t *testing.T) {
	eachFanoutTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.WriteBacklog = 64 << 10 })
		slow, fast := s.connect(t), s.connect(t)
		slow.Subscribe("firehose")
		fast.Subscribe("firehose")
		data := strings.Repeat("x", 8<<10)
		publish := func() {
			s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
		}
		// The slow client never reads; the kernel buffers fill, then the
		// backlog. On the portable transport it is let go a close timeout
		// after its close frame was queued.
		testutil.Eventually(t, waitLimit, "the slow consumer to be closed", func() bool {
			for range 16 {
				publish()
				fast.Expect("e")
			}
			return channelOf(s, "firehose").SubscriptionCount == 1
		})
		publish()
		fast.Expect("e")
	})
}

// TestEpollBlockedWriterTimesOut: on the epoll transport, a client whose
// socket stays full past the write timeout is closed even though its
// backlog is under the cap. It runs in real time, with a one-second
// timeout, as epoll needs real sockets; TestBlockedWriterTimesOutOnTime
// checks the portable transport on a fake clock.
func TestEpollBlockedWriterTimesOut(t *testing.T) {
	for _, tr := range []string{config.TransportEpoll, config.TransportEpollUring} {
		t.Run(tr, func(t *testing.T) { blockedWriterTimesOut(t, tr) })
	}
}

func blockedWriterTimesOut(t *testing.T, tr string) {
	s := startServer(t, tr, func(c *config.Config) {
		c.Limits.WriteTimeout = time.Second
		c.Limits.WriteBacklog = 64 << 20
	})
	slow := s.connect(t)
	slow.Subscribe("firehose")
	data := strings.Repeat("y", 64<<10)
	for i := 0; i < 200 && channelOf(s, "firehose").Occupied; i++ {
		s.Hub().Publish("app-id", hub.Publication{Channels: []string{"firehose"}, Event: "e", Data: data})
	}
	testutil.Eventually(t, waitLimit, "the blocked writer to be closed", func() bool {
		return !channelOf(s, "firehose").Occupied
	})
}
