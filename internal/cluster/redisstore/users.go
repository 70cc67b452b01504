package redisstore

import (
	"context"
	"errors"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// users is the cluster's hub.Users: one Redis hash per app, whose entries
// hold each node's signed-in connections of a user. Its local part is this
// node's own users: the answer while Redis is away, and what the node writes
// again when Redis comes back. Sign-ins and sign-outs go through opsLoop.
type users struct {
	r     *Redis
	local *hub.MemoryUsers
}

var _ hub.Users = (*users)(nil)

// SignIn implements hub.Users.
func (u *users) SignIn(ctx context.Context, app, user string) (bool, error) {
	return u.r.submit(&op{ctx: ctx, Change: cluster.Change{Kind: cluster.SignIn, App: app, Member: hub.Member{ID: user}}})
}

// SignOut implements hub.Users.
func (u *users) SignOut(ctx context.Context, app, user string) (bool, error) {
	return u.r.submit(&op{ctx: ctx, Change: cluster.Change{Kind: cluster.SignOut, App: app, Member: hub.Member{ID: user}}})
}

// Online implements hub.Users.
func (u *users) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var vals []any
	err := u.r.call(ctx, func(ctx context.Context) (err error) {
		vals, err = u.r.rdb.HMGet(ctx, u.r.usersKey(app), ids...).Result()
		return err
	})
	if errors.Is(err, errDown) {
		return u.local.Online(ctx, app, ids)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for i, v := range vals {
		if v != nil {
			out = append(out, ids[i])
		}
	}
	return out, nil
}
