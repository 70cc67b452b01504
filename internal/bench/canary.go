package bench

import (
	"context"
	"fmt"
)

// canaryRate is how many events a second the canary is sent.
const canaryRate = 10

// canaryPrefix names the canary's channel, apart from every other load.
const canaryPrefix = "canary-p"

// canary is a few reading connections on a channel of their own, sent a
// stamped event canaryRate times a second through the signed HTTP API: the
// delivery latency a healthy subscriber sees while a mode loads the server
// in another way. Its connections come from their own worker process and
// source address (127.0.0.200), so they share nothing with the load but
// the server.
type canary struct {
	fleet  *Fleet
	pub    *publisher
	cancel context.CancelFunc
	done   chan struct{}
}

// startCanary dials conns canary connections to t and starts publishing.
func startCanary(ctx context.Context, c *Common, t Target, conns int) (*canary, error) {
	cfg := c.fleetBase(t)
	cfg.FirstSource, cfg.ChannelPool, cfg.PoolPrefix = 200, 1, canaryPrefix
	f, err := StartFleet(cfg)
	if err != nil {
		return nil, err
	}
	if err := f.Open(conns, 100); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.WaitReady(ctx, conns, 0, nil); err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: canary: %w", err)
	}
	pctx, cancel := context.WithCancel(ctx)
	cy := &canary{fleet: f, pub: newPublisher(t, canaryPrefix+"0", 2), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(cy.done)
		cy.pub.run(pctx, canaryRate, 1<<62, 2)
	}()
	return cy, nil
}

// window returns the canary's latency since the last call, and starts a
// new window.
func (cy *canary) window(ctx context.Context) (Latency, error) {
	h, err := cy.fleet.Histogram(ctx)
	if err != nil {
		return Latency{}, err
	}
	return latency(h), nil
}

// stop ends the publishing and closes the canary's connections.
func (cy *canary) stop() {
	cy.cancel()
	<-cy.done
	cy.fleet.Close()
}

// String renders the latency for a table row.
func (l Latency) String() string {
	return fmt.Sprintf("p50 %.1f ms, p99 %.1f ms, max %.1f ms (of %d)", l.P50, l.P99, l.Max, l.Count)
}
