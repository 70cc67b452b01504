package hub

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultStoreWait is how long the hub waits for the shared state to answer
// one call before it gives up (Config.StoreWait's default). It is longer
// than one slow reply of a healthy store and short enough for a client to
// be told soon that its subscription or sign-in failed.
const DefaultStoreWait = 3 * time.Second

// ErrUnavailable is wrapped by the error of a shared-state call that failed
// or did not answer within the hub's StoreWait.
var ErrUnavailable = errors.New("the cluster's shared state did not answer")

// async runs work, which consults the stores, and then done on shard's
// goroutine. With the hub's in-memory stores both run at once on the
// caller's goroutine. With a store elsewhere, work runs on a goroutine of
// its own under a StoreWait deadline and done is posted back through
// Shard.Do, so that an epoll loop never waits for the store (docs/design.md,
// "No loop waits for Redis").
func (h *Hub) async(shard int, work func(ctx context.Context), done func()) {
	if h.inline {
		work(context.Background())
		done()
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.wait)
		work(ctx)
		cancel()
		h.shards[shard].Do(done)
	}()
}

// background runs work, which consults the stores and reports to nobody
// (a leave, a sign-out, a count): at once with the in-memory stores, else
// on a goroutine of its own under a StoreWait deadline.
func (h *Hub) background(work func(ctx context.Context)) {
	if h.inline {
		work(context.Background())
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.wait)
		defer cancel()
		work(ctx)
	}()
}

// bounded returns ctx limited to StoreWait, for a query made on a caller's
// goroutine (the HTTP API's).
func (h *Hub) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, h.wait)
}

// unavailable wraps a store's error in ErrUnavailable, keeping nil and the
// errors that are answers (ErrChannelFull).
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrChannelFull) || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}
