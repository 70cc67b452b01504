package fallback

import (
	"context"

	"github.com/roostproject/roost/internal/connstats"
)

// Carrier is one of the handler's two transports as the server counts,
// drains and disables its transports.
type Carrier struct {
	h *Handler
	k kind
}

// Carriers returns the handler's xhr_streaming and xhr_polling transports.
func (h *Handler) Carriers() (Carrier, Carrier) {
	return Carrier{h, streaming}, Carrier{h, polling}
}

// Len returns the transport's sessions.
func (c Carrier) Len() int { return int(c.h.stats[c.k].Open.Load()) }

// Stats returns the transport's counters.
func (c Carrier) Stats() *connstats.Stats { return &c.h.stats[c.k] }

// DisableApp closes the transport's sessions of the app with 4003.
func (c Carrier) DisableApp(appID string) { c.h.disableApp(appID, c.k) }

// Shutdown ends every session of the handler left after Drain (Close); it
// must run before the shard's goroutine stops.
func (c Carrier) Shutdown(context.Context) error {
	c.h.Close()
	return nil
}
