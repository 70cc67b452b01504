package cluster

import (
	"context"

	"github.com/roostproject/roost/internal/hub"
)

// users is the cluster's hub.Users: one Redis hash per app, whose entries
// hold each node's signed-in connections of a user. Its local part is this
// node's own users: the answer while Redis is away, and what the node writes
// again when Redis comes back.
type users struct {
	r     *Redis
	local *hub.MemoryUsers // guarded by r.shares as well, see Redis.shares
}

var _ hub.Users = (*users)(nil)

func (r *Redis) usersKey(app string) string { return r.key("users", app) }

// SignIn implements hub.Users.
func (u *users) SignIn(app, user string) bool {
	var local bool
	u.r.withShares(func() { local = u.local.SignIn(app, user) })
	first := false
	if !u.r.call(func(ctx context.Context) error {
		before, _, _, err := u.r.add(ctx, u.r.usersKey(app), user, 1, "", 0)
		first = before == 0
		return err
	}) {
		return local
	}
	return first
}

// SignOut implements hub.Users.
func (u *users) SignOut(app, user string) bool {
	var local bool
	u.r.withShares(func() { local = u.local.SignOut(app, user) })
	last := false
	if !u.r.call(func(ctx context.Context) error {
		before, after, _, err := u.r.add(ctx, u.r.usersKey(app), user, -1, "", 0)
		last = before > 0 && after == 0
		return err
	}) {
		return local
	}
	return last
}

// Online implements hub.Users.
func (u *users) Online(app string, ids []string) []string {
	if len(ids) == 0 {
		return nil
	}
	var vals []any
	if !u.r.call(func(ctx context.Context) (err error) {
		vals, err = u.r.rdb.HMGet(ctx, u.r.usersKey(app), ids...).Result()
		return err
	}) {
		return u.local.Online(app, ids)
	}
	var out []string
	for i, v := range vals {
		if v != nil {
			out = append(out, ids[i])
		}
	}
	return out
}
