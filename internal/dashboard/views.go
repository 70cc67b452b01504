package dashboard

import (
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/metrics"
	"github.com/roostproject/roost/internal/pusher"
)

// maxListed bounds the apps and the channels one answer lists.
const maxListed = 1000

// session answers GET /dashboard/api/session: who the page talks to and
// what it may offer.
func (d *Dashboard) session(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"node": d.cfg.Node, "console": d.cfg.Settings.ConsoleOn(), "login": d.cfg.Token != "",
		"go": runtime.Version(), "interval_ms": d.cfg.Interval.Milliseconds(), "window_s": int(window.Seconds()),
	})
}

// overview answers GET /dashboard/api/overview: the samples of the last
// fifteen minutes, oldest first, the figures now, each app's webhook
// figures now, and in a cluster every node's latest sample.
func (d *Dashboard) overview(w http.ResponseWriter, r *http.Request) {
	var snap metrics.Snapshot
	d.cfg.Snapshot(&snap)
	out := map[string]any{"node": d.cfg.Node, "now": d.history.current(), "samples": d.history.samples(),
		"webhooks": webhookViews(&snap)}
	if d.cfg.Loaded != nil {
		l := d.cfg.Loaded()
		out["config"] = map[string]any{"loaded": l.LastSuccess.UnixMilli(), "last_reload_failed": l.Failed}
	}
	d.clusterView(r.Context(), out)
	writeJSON(w, http.StatusOK, out)
}

// appView is an app as the page shows it: its settings without the
// secret, webhook URLs without credentials or query, and its connections
// on this node.
type appView struct {
	config.App
	Connections int `json:"connections"`
}

// apps answers GET /dashboard/api/apps.
func (d *Dashboard) apps(w http.ResponseWriter, r *http.Request) {
	list, err := d.cfg.Apps.List(r.Context(), "", maxListed)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "listing apps: "+err.Error())
		return
	}
	out := make([]appView, 0, len(list))
	for _, a := range list {
		out = append(out, appView{App: withoutSecrets(a), Connections: d.cfg.Hub.Connections(a.ID)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"apps": out, "truncated": len(list) == maxListed})
}

// withoutSecrets returns a with its secret removed and each webhook URL cut
// to scheme, host and path (a URL may carry a password or a token).
func withoutSecrets(a config.App) config.App {
	a.Secret = ""
	hooks := make([]config.Webhook, len(a.Webhooks))
	for i, h := range a.Webhooks {
		h.URL = config.ShownURL(h.URL)
		hooks[i] = h
	}
	a.Webhooks = hooks
	return a
}

// app returns the app the query names, or answers 404.
func (d *Dashboard) app(w http.ResponseWriter, r *http.Request) *config.App {
	id := r.URL.Query().Get("app")
	a, err := d.cfg.Apps.ByID(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "finding app: "+err.Error())
		return nil
	}
	if a == nil {
		writeError(w, http.StatusNotFound, "no app with id "+strconv.Quote(id))
	}
	return a
}

// channelView is one occupied channel.
type channelView struct {
	Name          string `json:"name"`
	Subscriptions int    `json:"subscription_count"`
	Users         int    `json:"user_count,omitempty"`
}

// channels answers GET /dashboard/api/channels?app=ID&prefix=P: the app's
// occupied channels across the cluster, by name.
func (d *Dashboard) channels(w http.ResponseWriter, r *http.Request) {
	a := d.app(w, r)
	if a == nil {
		return
	}
	list, err := d.cfg.Hub.Channels(r.Context(), a.ID, r.URL.Query().Get("prefix"))
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "listing channels: "+err.Error())
		return
	}
	slices.SortFunc(list, func(x, y hub.ChannelStats) int { return strings.Compare(x.Name, y.Name) })
	out := make([]channelView, 0, min(len(list), maxListed))
	for _, c := range list[:min(len(list), maxListed)] {
		out = append(out, channelView{Name: c.Name, Subscriptions: c.SubscriptionCount, Users: c.UserCount})
	}
	writeJSON(w, http.StatusOK, map[string]any{"channels": out, "total": len(list)})
}

// memberView is a presence channel's member.
type memberView struct {
	ID   string `json:"id"`
	Info string `json:"info,omitempty"`
}

// channel answers GET /dashboard/api/channel?app=ID&name=N: the channel's
// counts, a presence channel's members, a cache channel's cached event
// (only its size on an encrypted channel).
func (d *Dashboard) channel(w http.ResponseWriter, r *http.Request) {
	a := d.app(w, r)
	if a == nil {
		return
	}
	name := r.URL.Query().Get("name")
	st, err := d.cfg.Hub.Channel(r.Context(), a.ID, name)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "reading channel: "+err.Error())
		return
	}
	out := map[string]any{"name": name, "occupied": st.Occupied, "subscription_count": st.SubscriptionCount}
	kind := pusher.KindOf(name)
	if kind.IsPresence() {
		members, err := d.cfg.Hub.Members(r.Context(), a.ID, name)
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, "reading members: "+err.Error())
			return
		}
		mv := make([]memberView, 0, len(members))
		for _, m := range members {
			mv = append(mv, memberView{ID: m.ID, Info: m.Info})
		}
		out["members"] = mv
	}
	if kind.IsCache() {
		data, ttl, ok, err := d.cfg.Hub.Cached(r.Context(), a.ID, name)
		if err == nil && ok {
			shown, size, hidden := shownData(name, data)
			out["cached"] = map[string]any{"data": shown, "size": size, "hidden": hidden, "ttl_s": int(ttl.Seconds())}
		}
	}
	writeJSON(w, http.StatusOK, out)
}
