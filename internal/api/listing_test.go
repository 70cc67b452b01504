package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// The strings a listing may hold: channel names of every allowed
// character, and user ids with quotes, escapes, HTML, control characters,
// non-ASCII, U+2028 and invalid UTF-8.
var listingStrings = []string{
	"", "public", "presence-room_1", "a-b=c@d,e.f;g", "private-encrypted-x",
	`bob "the" builder`, `back\slash`, "<script>&amp;", "tab\there", "nul\x00", "héllo", "line\u2028sep", "bad\xffutf8",
}

// TestAppendStringIsEncodingJSON: the listing encoder writes every string
// byte for byte as encoding/json does.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	for _, s := range listingStrings {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range listingStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString([]byte("x"), s); string(got[1:]) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

// TestListingsAreEncodingJSON: a listing reply is what encoding/json made
// of the reply's maps before, for every combination of attributes.
func TestListingsAreEncodingJSON(t *testing.T) {
	all := []hub.ChannelStats{
		{Name: "presence-a", Occupied: true, SubscriptionCount: 3, UserCount: 2},
		{Name: "presence-b", Occupied: true, SubscriptionCount: 1, UserCount: 1},
		{Name: "public", Occupied: true, SubscriptionCount: 7},
	}
	for _, a := range []attrs{0, attrSubscriptionCount, attrUserCount, attrUserCount | attrSubscriptionCount} {
		info := channelsInfo{Channels: map[string]map[string]int{}}
		for _, st := range all {
			info.Channels[st.Name] = countsOf(st.Name, st, a)
		}
		want, _ := json.Marshal(info)
		if got := appendChannels(nil, all, a); string(got) != string(want) {
			t.Errorf("attrs %b: %s, want %s", a, got, want)
		}
	}
	type entry struct {
		ID string `json:"id"`
	}
	var users struct {
		Users []entry `json:"users"`
	}
	users.Users = []entry{}
	for _, s := range listingStrings {
		users.Users = append(users.Users, entry{s})
	}
	want, _ := json.Marshal(users)
	if got := appendUsers(nil, listingStrings); string(got) != string(want) {
		t.Errorf("users: %s, want %s", got, want)
	}
}

// blockingBackend's listings wait until release is closed, counting how
// many are inside at once.
type blockingBackend struct {
	*fakeBackend
	inside  atomic.Int32
	release chan struct{}
}

func (b *blockingBackend) Channels(ctx context.Context, app, prefix string) ([]hub.ChannelStats, error) {
	b.inside.Add(1)
	defer b.inside.Add(-1)
	<-b.release
	return nil, nil
}

// TestListingsWaitForASlot: no more listings are built at once than the
// handler has slots; one more waits, and is answered 503 when its client
// gives up first.
func TestListingsWaitForASlot(t *testing.T) {
	b := &blockingBackend{fakeBackend: &fakeBackend{}, release: make(chan struct{})}
	f := newFixture(t, func(c *Config) { c.Backend = b })
	slots := cap(newListings().slots)
	var wg sync.WaitGroup
	for range slots {
		wg.Go(func() { f.call("GET", "/apps/3/channels", "") })
	}
	for deadline := time.Now().Add(10 * time.Second); b.inside.Load() < int32(slots); {
		if time.Now().After(deadline) {
			t.Fatalf("%d listings inside, want %d", b.inside.Load(), slots)
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := signed("GET", "/apps/3/channels", "", testKey, testSecret).WithContext(ctx)
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || b.inside.Load() != int32(slots) {
		t.Errorf("a listing past the slots: status %d, %d inside (want 503, %d)", rec.Code, b.inside.Load(), slots)
	}
	close(b.release)
	wg.Wait()
}

// TestListingsGiveUpWaiting: a listing that finds every slot taken for
// maxListingWait (a stalled store holds them) is answered 503, and no
// sooner.
func TestListingsGiveUpWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &blockingBackend{fakeBackend: &fakeBackend{}, release: make(chan struct{})}
		f := newFixture(t, func(c *Config) { c.Backend = b })
		slots := cap(newListings().slots)
		var wg sync.WaitGroup
		for range slots {
			wg.Go(func() { f.call("GET", "/apps/3/channels", "") })
		}
		synctest.Wait()
		start := time.Now()
		rec := f.call("GET", "/apps/3/channels", "")
		if waited := time.Since(start); rec.Code != http.StatusServiceUnavailable || waited != maxListingWait {
			t.Errorf("a listing past the slots: status %d after %v, want 503 after %v", rec.Code, waited, maxListingWait)
		}
		close(b.release)
		wg.Wait()
	})
}
