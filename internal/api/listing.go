package api

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// Listings (GET /channels of a busy app, the users of a large presence
// channel) are the API's only answers whose size grows with the node's
// state: 10,000 channels make a 200 KB reply. They are encoded by
// appending to one pooled buffer, so that a listing makes a few
// allocations rather than several per channel (garbage the collector
// would take from the event loops' CPU), and at most listingSlots of them
// are built at once, so that however many arrive together they never hold
// more than half the cores: the event loops keep the rest.

// listings bounds the listings being built at once.
type listings struct {
	slots chan struct{}
	bufs  sync.Pool // of *[]byte, replies being encoded
}

// newListings allows half the cores' worth of listings at once (one on a
// machine of one or two cores).
func newListings() *listings {
	return &listings{slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))}
}

// maxListingWait bounds the wait for a slot. A listing takes milliseconds
// of a core, so only a stalled store (each listing waiting for it until the
// hub's StoreWait) makes a queue this long; its listings are then answered
// 503 in their turn rather than one after the other's store wait, past the
// server's write timeout.
const maxListingWait = 5 * time.Second

// errListingsBusy answers a listing that found no slot within maxListingWait.
var errListingsBusy = errorf(http.StatusServiceUnavailable, "too many listings in progress; retry later")

// acquire waits for a slot, at most maxListingWait or until ctx ends (the
// client has gone): then the request is answered 503.
func (l *listings) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(maxListingWait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-t.C:
		return errListingsBusy
	case <-ctx.Done():
		return unavailable(context.Cause(ctx))
	}
}

func (l *listings) release() { <-l.slots }

// buffer returns a pooled, empty reply buffer; put gives it back.
func (l *listings) buffer() *[]byte {
	if b, ok := l.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// maxPooledReply is the largest reply buffer kept for the next listing;
// a larger one (a listing far beyond the usual) is left to the collector.
const maxPooledReply = 1 << 20

func (l *listings) put(b *[]byte) {
	if cap(*b) <= maxPooledReply {
		*b = (*b)[:0]
		l.bufs.Put(b)
	}
}

// list runs build in a slot and writes what it appended as the JSON reply.
func (h *handler) list(w http.ResponseWriter, r *http.Request, build func([]byte) ([]byte, error)) error {
	if err := h.listings.acquire(r.Context()); err != nil {
		return err
	}
	buf := h.listings.buffer()
	defer h.listings.put(buf)
	b, err := build(*buf)
	h.listings.release()
	if err != nil {
		return err
	}
	*buf = b
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
	return nil
}

// appendChannels appends the reply to GET /channels (Pusher HTTP API
// reference, "GET channels"): {"channels":{"name":{attributes},...}}, the
// channels in the order given (sorted by the backend), the attributes in
// the order encoding/json would write them.
func appendChannels(b []byte, all []hub.ChannelStats, a attrs) []byte {
	b = append(b, `{"channels":{`...)
	for i, st := range all {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, st.Name)
		b = append(b, ":{"...)
		sep := ""
		if a.has(attrSubscriptionCount) {
			b = append(b, `"subscription_count":`...)
			b = strconv.AppendInt(b, int64(st.SubscriptionCount), 10)
			sep = ","
		}
		if a.has(attrUserCount) && isPresence(st.Name) {
			b = append(b, sep+`"user_count":`...)
			b = strconv.AppendInt(b, int64(st.UserCount), 10)
		}
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

// appendUsers appends the reply to GET /users (Pusher HTTP API reference,
// "GET users"): {"users":[{"id":"..."},...]}.
func appendUsers(b []byte, ids []string) []byte {
	b = append(b, `{"users":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendString(b, id)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendString appends s as a JSON string, byte for byte as encoding/json
// writes it. Channel names and most user ids are printable ASCII that
// needs no escape, and are copied; anything else goes through
// encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
