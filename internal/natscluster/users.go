package natscluster

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"

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
	return u.n.apply(ctx, &change{kind: signIn, app: app, member: hub.Member{ID: user}})
}

// SignOut implements hub.Users.
func (u *users) SignOut(ctx context.Context, app, user string) (bool, error) {
	return u.n.apply(ctx, &change{kind: signOut, app: app, member: hub.Member{ID: user}})
}

// Online implements hub.Users: one read per id.
func (u *users) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	b := u.n.kv.Load()
	if b == nil || !u.n.link.healthy.Load() {
		return u.local.Online(ctx, app, ids)
	}
	var out []string
	for _, id := range ids {
		if id == "" {
			continue // no user signs in without an id
		}
		_, err := b.users.Get(ctx, key(app, id))
		switch {
		case err == nil:
			out = append(out, id)
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			u.n.link.suspect()
			return nil, err
		}
	}
	return out, nil
}
