package cluster

import (
	"strings"
	"sync"
)

// mirror is this node's own share of the cluster state, kept so that it can
// be written again when Redis comes back empty. Guarded by mu.
type mirror struct {
	mu       sync.Mutex
	presence map[pair]map[string]*share // (app, channel) -> user -> share
	users    map[string]map[string]int  // app -> user -> signed-in connections
	counts   map[pair]int               // (app, channel) -> subscriptions
	pending  map[pair]int               // subscription deltas not yet in Redis
}

type pair struct{ app, name string }

type share struct {
	n    int
	info string
}

func newMirror() mirror {
	return mirror{
		presence: make(map[pair]map[string]*share),
		users:    make(map[string]map[string]int),
		counts:   make(map[pair]int),
		pending:  make(map[pair]int),
	}
}

func (m *mirror) presenceAdd(k pair, user, info string, delta int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	users := m.presence[k]
	if users == nil {
		users = make(map[string]*share)
		m.presence[k] = users
	}
	s := users[user]
	if s == nil {
		s = &share{info: info}
		users[user] = s
	}
	if s.n += delta; s.n <= 0 {
		delete(users, user)
	}
	if len(users) == 0 {
		delete(m.presence, k)
	}
}

func (m *mirror) userAdd(app, user string, delta int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	users := m.users[app]
	if users == nil {
		users = make(map[string]int)
		m.users[app] = users
	}
	if users[user] += delta; users[user] <= 0 {
		delete(users, user)
	}
}

func (m *mirror) subscribed(k pair, delta int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts[k] += delta; m.counts[k] <= 0 {
		delete(m.counts, k)
	}
	if m.pending[k] += delta; m.pending[k] == 0 {
		delete(m.pending, k)
	}
}

// pendingOf returns the unflushed delta of one channel.
func (m *mirror) pendingOf(k pair) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pending[k]
}

// takePending hands over the unflushed deltas.
func (m *mirror) takePending() map[pair]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pending
	m.pending = make(map[pair]int)
	return p
}

// restore puts back deltas that could not be flushed.
func (m *mirror) restore(p map[pair]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, d := range p {
		if m.pending[k] += d; m.pending[k] == 0 {
			delete(m.pending, k)
		}
	}
}

// pendingWithPrefix returns (and keeps) the unflushed deltas of an app's
// channels that start with prefix.
func (m *mirror) pendingWithPrefix(app, prefix string) map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int)
	for k, d := range m.pending {
		if k.app == app && strings.HasPrefix(k.name, prefix) {
			out[k.name] = d
		}
	}
	return out
}
