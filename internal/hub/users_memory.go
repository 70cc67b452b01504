package hub

import (
	"context"
	"sync"
)

// MemoryUsers counts signed-in connections in this process: the single-node
// Users, and the share of its own users that a cluster node falls back on
// while its store is away. It is safe for concurrent use.
type MemoryUsers struct {
	mu     sync.Mutex
	online map[userKey]int // signed-in connections per user
}

var _ Users = (*MemoryUsers)(nil)

func (*MemoryUsers) inMemory() {}

type userKey struct{ app, user string }

// NewMemoryUsers returns an empty MemoryUsers.
func NewMemoryUsers() *MemoryUsers {
	return &MemoryUsers{online: make(map[userKey]int)}
}

// SignIn implements Users.
func (u *MemoryUsers) SignIn(_ context.Context, app, user string) (first bool, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := userKey{app, user}
	u.online[k]++
	return u.online[k] == 1, nil
}

// SignOut implements Users.
func (u *MemoryUsers) SignOut(_ context.Context, app, user string) (last bool, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := userKey{app, user}
	if u.online[k]--; u.online[k] > 0 {
		return false, nil
	}
	delete(u.online, k)
	return true, nil
}

// Online implements Users.
func (u *MemoryUsers) Online(_ context.Context, app string, ids []string) ([]string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, id := range ids {
		if u.online[userKey{app, id}] > 0 {
			out = append(out, id)
		}
	}
	return out, nil
}

// Each calls f for every signed-in user with its number of connections (a
// cluster node writes its share again from it). f must not call back into u.
func (u *MemoryUsers) Each(f func(app, user string, conns int)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for k, n := range u.online {
		f(k.app, k.user, n)
	}
}
