package cluster

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
)

// nodeTTL is how long a node's heartbeat key lives (cluster.Config.NodeTTL's
// default).
const nodeTTL = 15 * time.Second

// drainQuiet is how long draining a client waits for more frames.
const drainQuiet = 30 * time.Millisecond

const room = "presence-room"

// member is a presence client: one connection of user in room.
type member struct {
	user string
	c    *testutil.Client
}

// presenceOutage is two nodes whose members share room, over a Redis the
// test makes fail.
type presenceOutage struct {
	*duo
	members []*member
	want    []string // the users that are connected, sorted
}

// joinRoom connects user to n and joins room.
func (o *presenceOutage) joinRoom(n *node, user string) {
	o.t.Helper()
	m := &member{user: user, c: dial(o.t, n, "member "+user)}
	subscribePresence(o.t, m.c, room, user)
	o.members = append(o.members, m)
	if !slices.Contains(o.want, user) {
		o.want = append(o.want, user)
		slices.Sort(o.want)
	}
}

// leaveRoom closes the connection of the i-th member, whose user has no
// other connection.
func (o *presenceOutage) leaveRoom(i int) {
	m := o.members[i]
	m.c.Conn.Close()
	o.members = slices.Delete(o.members, i, i+1)
	o.want = slices.DeleteFunc(o.want, func(u string) bool { return u == m.user })
}

// view drains m's connection and returns the members it has been told of
// (subscription_succeeded, then member_added and member_removed, in
// order), sorted, and the users it was told had left.
func (o *presenceOutage) view(m *member) (members, removed []string) {
	m.c.Await(drainQuiet, func(testutil.Frame) bool { return false })
	set := map[string]bool{}
	for _, f := range m.c.Frames() {
		if f.Channel != room {
			continue
		}
		switch f.Event {
		case "pusher_internal:subscription_succeeded":
			var d struct {
				Presence struct {
					IDs []string `json:"ids"`
				} `json:"presence"`
			}
			m.c.DecodeData(f, &d)
			clear(set)
			for _, id := range d.Presence.IDs {
				set[id] = true
			}
		case "pusher_internal:member_added":
			set[userOf(m.c, f)] = true
		case "pusher_internal:member_removed":
			u := userOf(m.c, f)
			delete(set, u)
			removed = append(removed, u)
		}
	}
	for u := range set {
		members = append(members, u)
	}
	slices.Sort(members)
	return members, removed
}

func userOf(c *testutil.Client, f testutil.Frame) string {
	var d struct {
		UserID string `json:"user_id"`
	}
	c.DecodeData(f, &d)
	return d.UserID
}

// agree reports whether every member's view and /users on both nodes equal
// o.want, and describes the first difference.
func (o *presenceOutage) agree() (bool, string) {
	for _, n := range []*node{o.a, o.b} {
		if got := o.users(n, room); !slices.Equal(got, o.want) {
			return false, fmt.Sprintf("/users on %s = %v, want %v", n.name, got, o.want)
		}
	}
	for _, m := range o.members {
		if got, _ := o.view(m); !slices.Equal(got, o.want) {
			return false, fmt.Sprintf("%s sees %v, want %v", m.c.Name, got, o.want)
		}
	}
	return true, ""
}

// wrongRemovals returns the member_removed events any member got for a
// user that is still connected.
func (o *presenceOutage) wrongRemovals() []string {
	var out []string
	for _, m := range o.members {
		_, removed := o.view(m)
		for _, u := range removed {
			if slices.Contains(o.want, u) {
				out = append(out, fmt.Sprintf("%s got member_removed for %s", m.c.Name, u))
			}
		}
	}
	return out
}

// waitAgree polls until agree holds or within passes, and returns how long
// it took.
func (o *presenceOutage) waitAgree(within time.Duration, when string) time.Duration {
	o.t.Helper()
	start := time.Now()
	var why string
	if !testutil.Poll(within, func() bool { ok, w := o.agree(); why = w; return ok }) {
		o.t.Fatalf("%s: member lists and /users disagree after %v: %s; wrong removals: %v",
			when, within, why, o.wrongRemovals())
	}
	return time.Since(start)
}

// outlast keeps an outage going past d: heartbeats that stop during it
// expire, which is what the test is about, so this waits for time itself.
func outlast(d time.Duration) { time.Sleep(d) }

// agreeGuard bounds the wait for the member lists to agree after an
// outage; it stops a hang and is no budget.
const agreeGuard = 2 * nodeTTL

// TestPresenceSurvivesRedisOutages takes Redis away under two nodes whose
// seven users (one of them connected to both nodes) share a presence
// channel, in each way Redis goes away. After every one, each client's
// member list comes to equal /users once both nodes are ready (how long
// that took is logged, not held to a budget: agreeGuard only ends a hang),
// and no member that is still connected ever gets member_removed. During the kill -9 a member leaves on one node and
// another joins on the other, so the nodes must also catch up on what
// they could not tell each other.
//
// Redis only: three of its four outages are Redis's own (SHUTDOWN SAVE and
// NOSAVE, a data file that outlives the node TTL). The kill -9 and
// restart empty of every backend is TestBackendRestart; NATS's restart
// with its store past the TTL and its pause past the TTL are tested in
// process (internal/cluster/natsstore's TestNATSRestartWithDataPastTTL and
// TestNATSPausePastTTL).
func TestPresenceSurvivesRedisOutages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		outage func(o *presenceOutage)
	}{
		{"kill -9, changes meanwhile, restart empty", func(o *presenceOutage) {
			o.redis.Kill()
			o.waitReady(http.StatusServiceUnavailable, "degraded:")
			o.leaveRoom(slices.IndexFunc(o.members, func(m *member) bool { return m.user == "a3" }))
			o.joinRoom(o.b, "b4")
			o.redis.Start()
		}},
		{"SHUTDOWN NOSAVE, restart empty", func(o *presenceOutage) {
			o.redis.Shutdown(false)
			o.waitReady(http.StatusServiceUnavailable, "degraded:")
			o.redis.Start()
		}},
		{"SHUTDOWN SAVE, restart with data after the node TTL", func(o *presenceOutage) {
			o.redis.Shutdown(true)
			outlast(nodeTTL + time.Second)
			o.redis.Start()
		}},
		{"SIGSTOP past the node TTL", func(o *presenceOutage) {
			o.redis.Pause()
			outlast(nodeTTL + time.Second)
			o.redis.Resume()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &presenceOutage{duo: newDuo(t, "roost-presence")}
			o.waitReady(http.StatusOK, "ready")
			for _, u := range []string{"a1", "a2", "a3", "both"} {
				o.joinRoom(o.a, u)
			}
			for _, u := range []string{"b1", "b2", "b3", "both"} {
				o.joinRoom(o.b, u)
			}
			o.waitAgree(testutil.ReadTimeout, "before the outage")
			tc.outage(o)
			o.waitReady(http.StatusOK, "ready")
			took := o.waitAgree(agreeGuard, "after the outage")
			t.Logf("member lists equal /users %v after both nodes were ready", took.Round(time.Millisecond))
			if wrong := o.wrongRemovals(); len(wrong) > 0 {
				t.Fatalf("live members removed: %v", wrong)
			}
		})
	}
}
