package session

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// The tests below give the hub a store that answers only when the test
// opens its gate, as Redis does when it is slow, and a shard that runs
// what the hub posts to it only when the test drains it, as a loop runs
// its inbox: the session's connection goes on being served meanwhile.

// gate is a shared state whose presence and users calls wait while it is
// shut (or until their deadline), then answer from memory.
type gate struct {
	mu        sync.Mutex
	open      chan struct{} // closed while the gate is open
	failJoins atomic.Int32  // how many of the next joins fail
	presence  *hub.MemoryPresence
	users     *hub.MemoryUsers
}

func newGate() *gate {
	return &gate{open: make(chan struct{}), presence: hub.NewMemoryPresence(), users: hub.NewMemoryUsers()}
}

// release lets every call through until shut.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.open)
}

// shut makes calls wait again.
func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) Join(ctx context.Context, app, ch string, m hub.Member, max int) (bool, error) {
	if err := g.wait(ctx); err != nil {
		return false, err
	}
	if g.failJoins.Add(-1) >= 0 {
		return false, errors.New("refused")
	}
	return g.presence.Join(ctx, app, ch, m, max)
}

func (g *gate) Leave(ctx context.Context, app, ch, user string) (bool, error) {
	if err := g.wait(ctx); err != nil {
		return false, err
	}
	return g.presence.Leave(ctx, app, ch, user)
}

func (g *gate) Members(ctx context.Context, app, ch string) ([]hub.Member, error) {
	if err := g.wait(ctx); err != nil {
		return nil, err
	}
	return g.presence.Members(ctx, app, ch)
}

// users is the gate's hub.Users.
type users struct{ *gate }

func (u users) SignIn(ctx context.Context, app, user string) (bool, error) {
	if err := u.wait(ctx); err != nil {
		return false, err
	}
	return u.gate.users.SignIn(ctx, app, user)
}

func (u users) SignOut(ctx context.Context, app, user string) (bool, error) {
	if err := u.wait(ctx); err != nil {
		return false, err
	}
	return u.gate.users.SignOut(ctx, app, user)
}

func (u users) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	if err := u.wait(ctx); err != nil {
		return nil, err
	}
	return u.gate.users.Online(ctx, app, ids)
}

// inbox is a shard whose posts run when the test drains it.
type inbox struct {
	h  *hub.Hub
	fs chan func()
}

func (q *inbox) Post(d hub.Delivery) { q.fs <- func() { q.h.Flush(d) } }
func (q *inbox) Do(f func())         { q.fs <- f }

// drain runs what was posted until n posts have run.
func (q *inbox) drain(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case f := <-q.fs:
			f()
		case <-time.After(testutil.ReadTimeout):
			t.Fatalf("nothing was posted to the shard within %v", testutil.ReadTimeout)
		}
	}
}

// gatedFixture is a fixture whose hub waits for g and posts to q; the hub
// gives up on the store after wait.
func gatedFixture(t *testing.T, wait time.Duration) (*fixture, *gate, *inbox) {
	f := newFixture(t, nil)
	h := hub.New(hub.Config{Shards: 1, Encode: encode, StoreWait: wait}, 1)
	q := &inbox{h: h, fs: make(chan func(), 64)}
	h.SetShard(0, q)
	g := newGate()
	h.SetState(hub.State{Presence: g, Users: users{g}})
	f.env.Hub = h
	return f, g, q
}

// TestPresenceJoinWaitsForTheStore: while the store has not answered a
// presence join, the connection is served (a ping is answered) and a
// client event on the channel waits; then the join is answered, the others
// learn of the member, and the client event follows.
func TestPresenceJoinWaitsForTheStore(t *testing.T) {
	f, g, q := gatedFixture(t, testutil.ReadTimeout)
	watcher, r := f.connect(), f.connect()
	g.release()
	watcher.send(signed("presence-r", `{"user_id":"w"}`)(watcher))
	q.drain(t, 1)
	watcher.take()
	g.shut()
	r.send(signed("presence-r", alice)(r))
	r.send(`{"event":"client-x","channel":"presence-r","data":{}}`)
	r.send(`{"event":"pusher:ping","data":{}}`)
	r.expect(pong)
	g.release()
	q.drain(t, 2) // alice's member_added, then her join's answer
	watcher.expect(event("pusher_internal:member_added", "presence-r", `{"user_id":"alice","user_info":{"name":"Alice"}}`))
	r.expect(event("pusher_internal:subscription_succeeded", "presence-r",
		`{"presence":{"ids":["alice","w"],"hash":{"alice":{"name":"Alice"},"w":null},"count":2}}`))
	q.drain(t, 1) // the client event
	watcher.expect(`{"event":"client-x","channel":"presence-r","data":"{}","user_id":"alice"}`)
}

// TestPresenceJoinStoreTimeout: a store that does not answer in time gets
// the client a subscription_error, and what waited is answered after it.
func TestPresenceJoinStoreTimeout(t *testing.T) {
	f, _, q := gatedFixture(t, time.Millisecond)
	r := f.connect()
	r.send(signed("presence-r", alice)(r))
	r.send(`{"event":"client-x","channel":"presence-r","data":{}}`)
	q.drain(t, 1)
	r.expect(subscriptionError("presence-r", "Unavailable",
		"the cluster's shared state did not answer: context deadline exceeded", 503),
		pusherError(0, `not subscribed to channel "presence-r"`))
	if got, _ := f.env.Hub.Channel(context.Background(), "app-id", "presence-r"); got.Occupied {
		t.Fatalf("a failed join still holds the channel: %+v", got)
	}
}

// TestCloseCancelsWaitingJoin: a connection that closes while its join
// waits for the store is taken out of the store once the store answers,
// and nobody is told of it.
func TestCloseCancelsWaitingJoin(t *testing.T) {
	f, g, q := gatedFixture(t, testutil.ReadTimeout)
	r := f.connect()
	r.send(signed("presence-r", alice)(r))
	r.close()
	g.release()
	q.drain(t, 1) // the join's answer
	r.expect()
	testutil.Eventually(t, testutil.ReadTimeout, "alice leaving the store", func() bool {
		m, _ := g.presence.Members(context.Background(), "app-id", "presence-r")
		return len(m) == 0
	})
}

// TestSigninWaitsForTheStore: every message sent while the store has not
// answered a sign-in waits for its answer; a sign-in the store does not
// take in time is refused with a pusher:error, and the connection is not
// signed in.
func TestSigninWaitsForTheStore(t *testing.T) {
	const aliceData = `{"id":"alice","user_info":{"name":"Alice"}}`
	f, g, q := gatedFixture(t, testutil.ReadTimeout)
	r := f.connect()
	r.send(r.signin(aliceData))
	r.send(subscribe("news", "", ""))
	r.expect()
	g.release()
	q.drain(t, 1)
	r.expect(signinSuccess(aliceData), succeeded("news"))
	if on, _ := g.users.Online(context.Background(), "app-id", []string{"alice"}); !slices.Equal(on, []string{"alice"}) {
		t.Fatalf("online after the sign-in: %v", on)
	}
	r.close()
	testutil.Eventually(t, testutil.ReadTimeout, "alice signed out", func() bool {
		on, _ := g.users.Online(context.Background(), "app-id", []string{"alice"})
		return len(on) == 0
	})

	f, _, q = gatedFixture(t, time.Millisecond)
	r = f.connect()
	r.send(r.signin(aliceData))
	r.send(subscribe("presence-r", r.channelAuth("presence-r", ""), "")) // as the signed-in user
	q.drain(t, 1)
	r.expect(pusherError(0, "sign-in failed, try again: the cluster's shared state did not answer: context deadline exceeded"),
		subscriptionError("presence-r", "InvalidChannelData", "The channel_data must be a JSON object.", 400))
}

// TestRejoinWhileTheStoreWaits: a join cancelled and made again before
// the store's answers are handled (on a channel another subscriber keeps)
// is answered by the second answer: the first one's failure is not taken
// for it.
func TestRejoinWhileTheStoreWaits(t *testing.T) {
	f, g, q := gatedFixture(t, testutil.ReadTimeout)
	g.release()
	watcher, r := f.connect(), f.connect()
	watcher.send(signed("presence-r", `{"user_id":"w"}`)(watcher))
	q.drain(t, 1)
	g.failJoins.Store(1)
	r.send(signed("presence-r", alice)(r))
	testutil.Eventually(t, testutil.ReadTimeout, "the failed join's answer", func() bool { return len(q.fs) == 1 })
	r.send(`{"event":"pusher:unsubscribe","data":{"channel":"presence-r"}}`)
	r.send(signed("presence-r", alice)(r))
	testutil.Eventually(t, testutil.ReadTimeout, "the second join's answer", func() bool { return len(q.fs) == 3 })
	q.drain(t, 3) // the failed answer, alice's member_added, the second answer
	r.expect(event("pusher_internal:subscription_succeeded", "presence-r",
		`{"presence":{"ids":["alice","w"],"hash":{"alice":{"name":"Alice"},"w":null},"count":2}}`))
}
