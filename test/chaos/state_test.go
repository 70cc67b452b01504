package chaos

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/testutil"
)

// The model of one node, derived from the live clients: who is subscribed
// where, who is signed in.

// members returns the distinct users subscribed to a presence channel.
func (r *run) members(ch string) []string {
	set := map[string]bool{}
	for _, c := range r.clientsOn(ch) {
		set[c.user] = true
	}
	return sortedKeys(set)
}

// occupied returns the channels with a subscriber.
func (r *run) occupied() []string {
	var out []string
	for _, ch := range channels {
		if len(r.clientsOn(ch)) > 0 {
			out = append(out, ch)
		}
	}
	slices.Sort(out)
	return out
}

// online returns the users with a signed-in connection.
func (r *run) online() map[string]bool {
	set := map[string]bool{}
	for _, c := range r.clientsOn("") {
		if c.signed {
			set[c.user] = true
		}
	}
	return set
}

// diff compares the cluster with the model and returns every difference,
// keyed by what differs, for the checker to poll until none is left.
func (r *run) diff() map[string]string {
	d := map[string]string{}
	for _, c := range r.clientsOn("") {
		r.diffClient(c, d)
	}
	for i := range r.rig.nodes {
		if r.rig.alive[i] {
			r.diffNode(i, d)
		}
	}
	r.diffHooks(d)
	r.diffDeliveries(d)
	r.diffCache(d)
	return d
}

// diffClient compares what one client was told with the model: its
// presence member lists, its subscription counts, its watchlist.
func (r *run) diffClient(c *client, d map[string]string) {
	frames := c.snapshot()
	for _, ch := range sortedKeys(c.subs) {
		if strings.HasPrefix(ch, "presence-") {
			got, _ := memberList(frames, ch)
			if want := r.members(ch); !slices.Equal(got, want) {
				d[fmt.Sprintf("members|client %d on node %d, %s", c.id, c.node, ch)] = fmt.Sprintf("%v, want %v", got, want)
			}
			continue
		}
		if got, want := lastCount(frames, ch), len(r.clientsOn(ch)); got != want {
			d[fmt.Sprintf("subscription_count|client %d on node %d, %s", c.id, c.node, ch)] = fmt.Sprintf("%d, want %d", got, want)
		}
	}
	if c.signed {
		got, want := watched(frames), r.online()
		for _, u := range c.watch {
			if got[u] != want[u] {
				d[fmt.Sprintf("watchlist|client %d on node %d, %s", c.id, c.node, u)] = fmt.Sprintf("online %v, want %v", got[u], want[u])
			}
		}
	}
}

// memberList folds a presence channel's frames since the last
// subscription_succeeded into its member list, and counts the users
// announced again while already members.
func memberList(frames []testutil.Frame, ch string) ([]string, int) {
	set, twice := map[string]bool{}, 0
	for _, f := range frames {
		if f.Channel != ch {
			continue
		}
		switch f.Event {
		case "pusher_internal:subscription_succeeded":
			var d struct {
				Presence struct{ IDs []string } `json:"presence"`
			}
			json.Unmarshal([]byte(f.Text()), &d)
			clear(set)
			for _, id := range d.Presence.IDs {
				set[id] = true
			}
		case "pusher_internal:member_added", "pusher_internal:member_removed":
			var m struct {
				UserID string `json:"user_id"`
			}
			json.Unmarshal([]byte(f.Text()), &m)
			added := f.Event == "pusher_internal:member_added"
			if set[m.UserID] == added {
				twice++
			}
			set[m.UserID] = added
			if !added {
				delete(set, m.UserID)
			}
		}
	}
	return sortedKeys(set), twice
}

// lastCount returns the last pusher_internal:subscription_count on ch
// since the last subscription_succeeded, or 0.
func lastCount(frames []testutil.Frame, ch string) int {
	n := 0
	for _, f := range frames {
		switch {
		case f.Channel != ch:
		case f.Event == "pusher_internal:subscription_succeeded":
			n = 0
		case f.Event == "pusher_internal:subscription_count":
			var d struct {
				N int `json:"subscription_count"`
			}
			json.Unmarshal([]byte(f.Text()), &d)
			n = d.N
		}
	}
	return n
}

// watched folds pusher_internal:watchlist_events into the online users.
func watched(frames []testutil.Frame) map[string]bool {
	set := map[string]bool{}
	for _, f := range frames {
		if f.Event != "pusher_internal:watchlist_events" {
			continue
		}
		var d struct {
			Events []struct {
				Name    string   `json:"name"`
				UserIDs []string `json:"user_ids"`
			} `json:"events"`
		}
		json.Unmarshal([]byte(f.Text()), &d)
		for _, e := range d.Events {
			for _, u := range e.UserIDs {
				set[u] = e.Name == "online"
			}
		}
	}
	return set
}

// diffNode compares one node's HTTP API with the model: GET /channels,
// GET /channels/{name} and GET /channels/{name}/users.
func (r *run) diffNode(i int, d map[string]string) {
	var all struct {
		Channels map[string]json.RawMessage `json:"channels"`
	}
	r.get(i, "/channels", nil, &all, d)
	var got []string
	for ch := range all.Channels {
		if !strings.HasPrefix(ch, "#") {
			got = append(got, ch)
		}
	}
	slices.Sort(got)
	if want := r.occupied(); !slices.Equal(got, want) {
		d[fmt.Sprintf("channels|node %d", i)] = fmt.Sprintf("%v, want %v", got, want)
	}
	for _, ch := range channels {
		r.diffChannel(i, ch, d)
	}
}

// diffChannel compares GET /channels/{ch} (and /users for presence).
func (r *run) diffChannel(i int, ch string, d map[string]string) {
	info, want := "subscription_count", len(r.clientsOn(ch))
	presence := strings.HasPrefix(ch, "presence-")
	if presence {
		info, want = "user_count", len(r.members(ch))
	}
	var one map[string]any
	r.get(i, "/channels/"+ch, url.Values{"info": {info}}, &one, d)
	occupied, _ := one["occupied"].(bool)
	n, _ := one[info].(float64) // JSON numbers decode as float64
	if occupied != (want > 0) || want > 0 && int(n) != want {
		d[fmt.Sprintf("counts|node %d, %s", i, ch)] = fmt.Sprintf("occupied %v %s %v, want %d", one["occupied"], info, one[info], want)
	}
	if !presence {
		return
	}
	var us struct {
		Users []struct{ ID string } `json:"users"`
	}
	r.get(i, "/channels/"+ch+"/users", nil, &us, d)
	var got []string
	for _, u := range us.Users {
		got = append(got, u.ID)
	}
	slices.Sort(got)
	if want := r.members(ch); !slices.Equal(got, want) {
		d[fmt.Sprintf("users|node %d, %s", i, ch)] = fmt.Sprintf("%v, want %v", got, want)
	}
}

// get sends a signed GET to node i and decodes its answer into v; a
// failure is a difference.
func (r *run) get(i int, path string, q url.Values, v any, d map[string]string) {
	status, body, err := r.rig.api.Do(r.rig.nodes[i].URL, http.MethodGet, path, q, nil)
	if err != nil || status != http.StatusOK || json.Unmarshal([]byte(body), v) != nil {
		d[fmt.Sprintf("api|node %d GET %s", i, path)] = fmt.Sprintf("%d %s %v", status, body, err)
	}
}
