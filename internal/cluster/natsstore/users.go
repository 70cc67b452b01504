package natsstore

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// users is the cluster's hub.Users: one key per user in the users bucket,
// holding each node's signed-in connections of the user. Its local part is
// this node's own users: the answer while NATS is away, and what the node
// writes again when NATS comes back.
type users struct {
	n     *Node
	local *hub.MemoryUsers
}

var _ hub.Users = (*users)(nil)

// SignIn implements hub.Users.
func (u *users) SignIn(ctx context.Context, app, user string) (bool, error) {
	return u.n.apply(ctx, &change{cluster.Change{Kind: cluster.SignIn, App: app, Member: hub.Member{ID: user}}})
}

// SignOut implements hub.Users.
func (u *users) SignOut(ctx context.Context, app, user string) (bool, error) {
	return u.n.apply(ctx, &change{cluster.Change{Kind: cluster.SignOut, App: app, Member: hub.Member{ID: user}}})
}

// Online implements hub.Users: one read per id, several at once.
func (u *users) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	b := u.n.kv.Load()
	if b == nil || !u.n.link.Healthy.Load() {
		return u.local.Online(ctx, app, ids)
	}
	online := make([]bool, len(ids))
	errs := make([]error, len(ids))
	idx := make([]int, 0, len(ids))
	for i, id := range ids {
		if id != "" { // no user signs in without an id
			idx = append(idx, i)
		}
	}
	inParallel(flushParallel, idx, func(i int) {
		_, err := b.users.Get(ctx, key(app, ids[i]))
		online[i] = err == nil
		if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			errs[i] = err
		}
	})
	var out []string
	for i, id := range ids {
		if errs[i] != nil {
			u.n.link.Suspect()
			return nil, errs[i]
		}
		if online[i] {
			out = append(out, id)
		}
	}
	return out, nil
}
