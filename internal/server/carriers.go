package server

import (
	"context"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/portable"
)

// carrier is what the server asks of every transport that carries
// sessions, whatever their handshake: the epoll loops, the portable
// transport, and any other that is added to Server.carriers.
type carrier interface {
	// Len returns how many sessions it serves now.
	Len() int
	// DisableApp closes the app's sessions with 4003.
	DisableApp(appID string)
	// Shutdown tells every session to reconnect (4200) and ends them
	// within ctx.
	Shutdown(ctx context.Context) error
}

var (
	_ carrier = (*netpoll.Poller)(nil)
	_ carrier = (*portable.Transport)(nil)
)

// carried is a carrier with its label and counters.
type carried struct {
	carrier
	kind  admission.Transport
	stats *connstats.Stats
}

// addCarrier makes c one of the node's transports: counted, drained and
// told of disabled apps like the others.
func (s *Server) addCarrier(c carrier, kind admission.Transport, stats *connstats.Stats) {
	s.carriers = append(s.carriers, carried{carrier: c, kind: kind, stats: stats})
}

// disableApp closes the connections of an app that was switched off or
// removed in the app store with 4003.
func (s *Server) disableApp(appID string) {
	for _, c := range s.carriers {
		c.DisableApp(appID)
	}
}

// Connections returns how many sessions the node serves.
func (s *Server) Connections() int {
	n := 0
	for _, c := range s.carriers {
		n += c.Len()
	}
	return n
}
