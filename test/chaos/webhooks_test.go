package chaos

import (
	"fmt"
	"strings"
)

// diffHooks compares the webhooks received with the model, as often as it
// says: per channel, channel_occupied less channel_vacated is 1 while the
// channel has subscribers and 0 otherwise (a second channel_occupied in a
// row is a difference); per presence member, member_added less
// member_removed likewise; every client event made while no fault was in
// force arrived once as a client_event.
func (r *run) diffHooks(d map[string]string) {
	evs, bad := r.rig.hooks.snapshot()
	if bad > 0 {
		d["webhook|signature"] = fmt.Sprintf("%d requests with a bad signature or body", bad)
	}
	net, clientEvents := map[string]int{}, map[string]int{}
	for _, e := range evs {
		switch e.Name {
		case "channel_occupied":
			net[e.Channel]++
		case "channel_vacated":
			net[e.Channel]--
		case "member_added":
			net[e.Channel+" "+e.UserID]++
		case "member_removed":
			net[e.Channel+" "+e.UserID]--
		case "client_event":
			clientEvents[e.Data]++
		}
	}
	r.diffOccupancy(net, d, evs)
	for _, s := range r.sent {
		if s.client && s.clean && len(s.want) > 0 && clientEvents[s.id] != 1 || s.client && clientEvents[s.id] > 1 {
			d["webhook|client_event "+s.id] = fmt.Sprintf("client_event for %s on %s arrived %d times, want 1", s.id, s.channel, clientEvents[s.id])
		}
	}
}

// diffOccupancy compares the net occupied and member webhooks with the
// model.
func (r *run) diffOccupancy(net map[string]int, d map[string]string, evs []hook) {
	for _, ch := range channels {
		want := 0
		if len(r.clientsOn(ch)) > 0 {
			want = 1
		}
		if r.offBalance("webhook|occupancy "+ch, net[ch], want) {
			d["webhook|occupancy "+ch] = fmt.Sprintf("channel_occupied less channel_vacated %d, want %d%s (the last: %s)", net[ch], want, r.reported("webhook|occupancy "+ch), lastHooks(evs, ch, ""))
		}
		if !strings.HasPrefix(ch, "presence-") {
			continue
		}
		members := map[string]bool{}
		for _, u := range r.members(ch) {
			members[u] = true
		}
		for _, u := range users {
			want := 0
			if members[u] {
				want = 1
			}
			if got := net[ch+" "+u]; r.offBalance("webhook|member "+ch+" "+u, got, want) {
				d["webhook|member "+ch+" "+u] = fmt.Sprintf("member_added less member_removed %d, want %d%s (the last: %s)", got, want, r.reported("webhook|member "+ch+" "+u), lastHooks(evs, ch, u))
			}
		}
	}
}

// offBalance reports whether a webhook count differs from the model by
// other than what was already reported: an imbalance reported once (see
// unsettled) becomes the count's new baseline, so that a later round
// reports only what it adds.
func (r *run) offBalance(key string, got, want int) bool {
	r.hookLast[key] = got - want
	return got-want != r.hookBase[key]
}

// rebase makes the imbalances of the keys left in d their baseline.
func (r *run) rebase(d map[string]string) {
	for k := range d {
		if off, ok := r.hookLast[k]; ok {
			r.hookBase[k] = off
		}
	}
}

// reported names the imbalance already reported for key, if any.
func (r *run) reported(key string) string {
	if b := r.hookBase[key]; b != 0 {
		return fmt.Sprintf(" (off by %+d when last reported)", b)
	}
	return ""
}

// lastHooks names the last few occupancy webhooks of ch (member webhooks
// of user, if not ""), with the time each arrived, to follow a difference.
func lastHooks(evs []hook, ch, user string) string {
	var out []string
	for _, e := range evs {
		member := e.Name == "member_added" || e.Name == "member_removed"
		occupancy := e.Name == "channel_occupied" || e.Name == "channel_vacated"
		if e.Channel == ch && (user == "" && occupancy || user != "" && member && e.UserID == user) {
			out = append(out, e.Name+"@"+e.at.UTC().Format("15:04:05.000"))
		}
	}
	return strings.Join(out[max(0, len(out)-4):], ", ")
}
