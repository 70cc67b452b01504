package api

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/roostproject/roost/internal/auth"
	"github.com/roostproject/roost/internal/hub"
)

// listingHub returns a one-node hub whose app testAppID holds n public
// channels and n presence channels of one member each, as a busy node does.
func listingHub(tb testing.TB, n int) *hub.Hub {
	tb.Helper()
	h := hub.New(hub.Config{Shards: 1, Encode: func(m *hub.Message) []byte { return []byte(m.Data) }}, 1)
	pr := hub.NewMemoryPresence()
	for i := range n {
		h.Acquire(testAppID, fmt.Sprintf("orders-%05d", i))
		name := fmt.Sprintf("presence-room-%05d", i)
		h.Acquire(testAppID, name)
		if _, err := pr.Join(tb.Context(), testAppID, name, hub.Member{ID: "u1"}, 0); err != nil {
			tb.Fatal(err)
		}
	}
	h.SetState(hub.State{Presence: pr})
	return h
}

// benchmarkListing serves one signed GET /channels again and again against
// a hub of 10,000 channels of each kind.
func benchmarkListing(b *testing.B, query string) {
	f := newFixture(b, func(c *Config) { c.Backend = listingHub(b, 10000) })
	q, _ := url.ParseQuery(query)
	path := "/apps/" + testAppID + "/channels"
	signedQ := auth.SignRequest(http.MethodGet, path, q, nil, testKey, testSecret, testNow())
	req := httpRequest(http.MethodGet, path+"?"+signedQ.Encode(), "")
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.code = http.StatusOK
		f.h.ServeHTTP(w, req)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
}

func BenchmarkChannels(b *testing.B) { benchmarkListing(b, "") }

func BenchmarkChannelsPrefixCounts(b *testing.B) {
	benchmarkListing(b, "filter_by_prefix=orders-&info=subscription_count")
}

func BenchmarkChannelsUserCount(b *testing.B) {
	benchmarkListing(b, "filter_by_prefix=presence-&info=user_count,subscription_count")
}
