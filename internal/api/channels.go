package api

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
)

// presencePrefix starts every presence channel name (Pusher docs, "Presence
// channels"); the channel list may count users only under this filter.
const presencePrefix = "presence-"

// cacheAttr is the value of "cache" in a channel reply (Pusher HTTP API
// reference: "Cached data and TTL (in seconds) for this channel").
type cacheAttr struct {
	Data string `json:"data"`
	TTL  int    `json:"ttl"`
}

// channels serves GET /apps/{id}/channels (Pusher HTTP API reference, "GET
// channels"): the occupied channels under filter_by_prefix, with user_count
// only when the filter selects presence channels.
func (h *handler) channels(w http.ResponseWriter, r *http.Request, req *request) error {
	prefix := req.query.Get("filter_by_prefix")
	a, err := parseInfo(req.query.Get("info"), attrUserCount|attrSubscriptionCount)
	if err != nil {
		return err
	}
	if a.has(attrUserCount) && !strings.HasPrefix(prefix, presencePrefix) {
		return errorf(http.StatusBadRequest, "info: user_count needs filter_by_prefix=%s", presencePrefix)
	}
	return h.list(w, r, func(b []byte) ([]byte, error) {
		all, err := h.cfg.Backend.Channels(r.Context(), req.app.ID, prefix)
		if err != nil {
			return b, unavailable(err)
		}
		return appendChannels(b, occupied(all, prefix), a), nil
	})
}

// occupied keeps, in place, the channels of all that are occupied and
// start with prefix (what the backend returned should be only those), in
// name order (which the hub's answer has already: sorting it again is a
// linear pass).
func occupied(all []hub.ChannelStats, prefix string) []hub.ChannelStats {
	all = slices.DeleteFunc(all, func(st hub.ChannelStats) bool {
		return !st.Occupied || !strings.HasPrefix(st.Name, prefix)
	})
	slices.SortFunc(all, func(x, y hub.ChannelStats) int { return strings.Compare(x.Name, y.Name) })
	return all
}

// channel serves GET /apps/{id}/channels/{name} (Pusher HTTP API reference,
// "GET channel"): occupied, plus the attributes info asks for. An attribute
// that does not fit the channel's type is a 400.
func (h *handler) channel(w http.ResponseWriter, r *http.Request, req *request) error {
	name := r.PathValue("channel")
	if err := pusher.ValidateChannel(name); err != nil {
		return errorf(http.StatusBadRequest, "channel: %v", err)
	}
	a, err := parseInfo(req.query.Get("info"), attrUserCount|attrSubscriptionCount|attrCache)
	if err != nil {
		return err
	}
	if err := fits(name, a); err != nil {
		return err
	}
	st, err := h.cfg.Backend.Channel(r.Context(), req.app.ID, name)
	if err != nil {
		return unavailable(err)
	}
	out := map[string]any{"occupied": st.Occupied}
	if a.has(attrUserCount) {
		out["user_count"] = st.UserCount
	}
	if a.has(attrSubscriptionCount) {
		out["subscription_count"] = st.SubscriptionCount
	}
	if a.has(attrCache) {
		if out["cache"], err = h.cached(r.Context(), req.app.ID, name); err != nil {
			return unavailable(err)
		}
	}
	return writeJSON(w, out)
}

// fits refuses attributes the channel's type does not have: user_count off
// presence channels, cache off cache channels.
func fits(name string, a attrs) error {
	if a.has(attrUserCount) && !isPresence(name) {
		return errorf(http.StatusBadRequest, "info: user_count is only available on presence channels")
	}
	if a.has(attrCache) && !isCache(name) {
		return errorf(http.StatusBadRequest, "info: cache is only available on cache channels")
	}
	return nil
}

// cached returns the cache attribute of a channel: nil (JSON null) when the
// cache is empty or the backend keeps none.
func (h *handler) cached(ctx context.Context, appID, name string) (*cacheAttr, error) {
	cr, ok := h.cfg.Backend.(CacheReader)
	if !ok {
		return nil, nil
	}
	data, ttl, ok, err := cr.Cached(ctx, appID, name)
	if !ok || err != nil {
		return nil, err
	}
	return &cacheAttr{Data: data, TTL: int(ttl.Seconds())}, nil
}

// isPresence reports whether name is a presence channel.
func isPresence(name string) bool { return pusher.KindOf(name).IsPresence() }

// isCache reports whether name is a cache channel.
func isCache(name string) bool { return pusher.KindOf(name).IsCache() }
