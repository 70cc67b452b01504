package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/roostproject/roost/internal/hub"
)

// attrs is a set of channel attributes a request asks for with the info
// parameter (Pusher HTTP API reference, "Channel attributes").
type attrs uint8

// The attributes of the Pusher HTTP API reference.
const (
	attrUserCount         attrs = 1 << iota // distinct presence users
	attrSubscriptionCount                   // subscribed connections
	attrCache                               // cached event, cache channels only
)

// attrByName maps an info attribute's name to its bit.
func attrByName(name string) attrs {
	switch name {
	case "user_count":
		return attrUserCount
	case "subscription_count":
		return attrSubscriptionCount
	case "cache":
		return attrCache
	}
	return 0
}

// has reports whether a holds every attribute of b.
func (a attrs) has(b attrs) bool { return a&b == b }

// parseInfo parses a comma-separated info list, refusing names that are
// unknown or not among allowed. Empty items and spaces around names are
// ignored.
func parseInfo(list string, allowed attrs) (attrs, error) {
	var a attrs
	for list != "" {
		var item string
		item, list, _ = strings.Cut(list, ",")
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		bit := attrByName(item)
		if bit == 0 || !allowed.has(bit) {
			return 0, errorf(http.StatusBadRequest, "info: attribute %q not supported here", item)
		}
		a |= bit
	}
	return a, nil
}

// counts returns the counting attributes a asks for of one channel just
// published on, asking the backend only when there are some. The event is
// out already: if the backend does not answer, the attributes are left out
// (and logged) rather than the request failed, which a client would retry.
func (h *handler) counts(ctx context.Context, appID, name string, a attrs) map[string]int {
	if a&(attrUserCount|attrSubscriptionCount) == 0 {
		return map[string]int{}
	}
	st, err := h.cfg.Backend.Channel(ctx, appID, name)
	if err != nil {
		h.cfg.Logger.Warn("api: channel attributes left out of a publish reply", "app", appID, "channel", name, "err", err)
		return map[string]int{}
	}
	return countsOf(name, st, a)
}

// countsOf returns the counting attributes a asks for of channel name:
// user_count only on presence channels, subscription_count on any.
func countsOf(name string, st hub.ChannelStats, a attrs) map[string]int {
	m := make(map[string]int, 2)
	if a.has(attrUserCount) && isPresence(name) {
		m["user_count"] = st.UserCount
	}
	if a.has(attrSubscriptionCount) {
		m["subscription_count"] = st.SubscriptionCount
	}
	return m
}
