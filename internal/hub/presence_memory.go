package hub

import (
	"context"
	"sort"
	"sync"
)

// MemoryPresence keeps presence members in this process: the single-node
// Presence, and the share of its own members that a cluster node falls back
// on while its store is away. It is safe for concurrent use.
type MemoryPresence struct {
	mu       sync.Mutex
	channels map[channelKey]map[string]member // members per channel, by user id
}

var _ Presence = (*MemoryPresence)(nil)

func (*MemoryPresence) inMemory() {}

// channelKey names one channel of one app.
type channelKey struct{ app, channel string }

// member is one presence user, however many connections it has here.
type member struct {
	info  string
	conns int
}

// NewMemoryPresence returns an empty MemoryPresence.
func NewMemoryPresence() *MemoryPresence {
	return &MemoryPresence{channels: make(map[channelKey]map[string]member)}
}

// Join implements Presence.
func (p *MemoryPresence) Join(_ context.Context, app, channel string, m Member, max int) (first bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := channelKey{app, channel}
	members := p.channels[k]
	if e, ok := members[m.ID]; ok {
		e.conns++
		members[m.ID] = e
		return false, nil
	}
	if max > 0 && len(members) >= max {
		return false, ErrChannelFull
	}
	if members == nil {
		members = make(map[string]member)
		p.channels[k] = members
	}
	members[m.ID] = member{info: m.Info, conns: 1}
	return true, nil
}

// Leave implements Presence.
func (p *MemoryPresence) Leave(_ context.Context, app, channel, user string) (last bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := channelKey{app, channel}
	members := p.channels[k]
	e, ok := members[user]
	if !ok {
		return false, nil
	}
	if e.conns--; e.conns > 0 {
		members[user] = e
		return false, nil
	}
	delete(members, user)
	if len(members) == 0 {
		delete(p.channels, k)
	}
	return true, nil
}

// Members implements Presence.
func (p *MemoryPresence) Members(_ context.Context, app, channel string) ([]Member, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	members := p.channels[channelKey{app, channel}]
	out := make([]Member, 0, len(members))
	for id, e := range members {
		out = append(out, Member{ID: id, Info: e.info})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// MemberCount returns how many distinct members a channel has.
func (p *MemoryPresence) MemberCount(_ context.Context, app, channel string) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.channels[channelKey{app, channel}]), nil
}

var _ memberCounter = (*MemoryPresence)(nil)

// Each calls f for every member with its number of connections (a cluster
// node writes its share again from it). f must not call back into p.
func (p *MemoryPresence) Each(f func(app, channel string, m Member, conns int)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, members := range p.channels {
		for id, e := range members {
			f(k.app, k.channel, Member{ID: id, Info: e.info}, e.conns)
		}
	}
}
