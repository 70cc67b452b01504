package cluster

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// cacheRounds is how many publish-then-read rounds TestPublishedMeansCached
// makes: while the API answered before the store had the write, the other
// node's cache lagged a 200 within a few hundred rounds, on every backend.
const cacheRounds = 500

// TestPublishedMeansCached: once the HTTP API of node A answers 200 to a
// publish on a cache channel, node B's cache holds that event, as on one
// node (docs/cluster.md, "What a 200 means").
func TestPublishedMeansCached(t *testing.T) {
	onBackends(t, func(t *testing.T, b testutil.Backend) {
		d := newDuoOn(t, "cached", b)
		d.waitReady(http.StatusOK, "ready")
		for i := range cacheRounds {
			want := strconv.Itoa(i)
			d.a.trigger("cache-lag", "e", want)
			if got := cachedData(t, d.b, "cache-lag"); got != want {
				t.Fatalf("round %d: node B's cache holds %q after node A answered 200 to %q", i, got, want)
			}
		}
	})
}

// cachedData is the data of the event cached on channel, read through n's
// API ("" when none is).
func cachedData(t *testing.T, n *node, channel string) string {
	t.Helper()
	status, body := n.api(http.MethodGet, "/channels/"+channel, url.Values{"info": {"cache"}}, nil)
	var res struct {
		Cache *struct {
			Data string `json:"data"`
		} `json:"cache"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &res) != nil {
		t.Fatalf("GET /channels/%s?info=cache on %s = %d %s", channel, n.name, status, body)
	}
	if res.Cache == nil {
		return ""
	}
	return res.Cache.Data
}
