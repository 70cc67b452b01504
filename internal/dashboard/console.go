package dashboard

import (
	"errors"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/rate"
)

// Event is one line of the debug console.
type Event struct {
	Time     int64  `json:"time"` // Unix milliseconds
	Type     string `json:"type"`
	App      string `json:"app"`
	Channel  string `json:"channel,omitempty"`
	SocketID string `json:"socket_id,omitempty"`
	Event    string `json:"event,omitempty"`
	// Data is the event's data, cut to maxShownData bytes; never there
	// for an encrypted channel, whose events show only their Size.
	Data   string `json:"data,omitempty"`
	Size   int    `json:"size,omitempty"`
	User   string `json:"user_id,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Transport is what carries a new connection: "websocket",
	// "xhr_streaming" or "xhr_polling".
	Transport string `json:"transport,omitempty"`
	// Hidden says the data was left out: an encrypted channel.
	Hidden bool `json:"hidden,omitempty"`
	// URL is a webhook's URL without credentials or query; Events the
	// number of events its request carried.
	URL    string `json:"url,omitempty"`
	Events int    `json:"events,omitempty"`
	// Code is a close's code where its reason fixes it.
	Code int `json:"code,omitempty"`
}

// The console's event types.
const (
	typeConnected    = "connected"
	typeDisconnected = "disconnected"
	typeSubscribed   = "subscribed"
	typeUnsubscribed = "unsubscribed"
	typeAPIEvent     = "api_event"
	typeClientEvent  = "client_event"
	typeMemberAdded  = "member_added"
	typeMemberRemove = "member_removed"
	typeWebhookSent  = "webhook_sent"
	typeWebhookFail  = "webhook_failed"
)

// maxShownData is how much of an event's data the console shows.
const maxShownData = 2048

// watcherQueue is how many events wait for a slow console stream before
// more are skipped.
const watcherQueue = 256

// console is the hub.Console of the dashboard: it fans each fact out to
// the open streams (watchers) whose filter it matches. It is attached to
// the hub only while a watcher is open.
type console struct {
	hub       Hub
	perSecond int
	now       func() time.Time

	mu       sync.RWMutex // guards watchers; held while attaching and detaching
	watchers map[*watcher]struct{}
}

var _ hub.Console = (*console)(nil)

// watcher is one open console stream.
type watcher struct {
	app     string
	channel string // exact name, or a prefix when prefix is set; "" is all
	prefix  bool
	events  chan Event
	bucket  *rate.Bucket // caps the events a second shown
	skipped atomic.Int64 // events over the cap or the queue
}

func newConsole(h Hub, perSecond int, now func() time.Time) *console {
	if perSecond <= 0 {
		perSecond = 50
	}
	return &console{hub: h, perSecond: perSecond, now: now, watchers: make(map[*watcher]struct{})}
}

// watch opens a watcher of app's facts on channel ("" for all, "p*" for
// the channels starting with p); the first attaches the console.
func (c *console) watch(app, channel string) *watcher {
	w := &watcher{app: app, events: make(chan Event, watcherQueue),
		bucket: rate.NewBucket(float64(c.perSecond), c.perSecond)}
	w.channel, w.prefix = strings.CutSuffix(channel, "*")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchers[w] = struct{}{}
	if len(c.watchers) == 1 {
		c.hub.SetConsole(c)
	}
	return w
}

// unwatch closes w; the last one detaches the console.
func (c *console) unwatch(w *watcher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.watchers, w)
	if len(c.watchers) == 0 {
		c.hub.SetConsole(nil)
	}
}

// wants reports whether w shows a fact of app on channel ("" for a
// connection's own facts, shown only without a channel filter).
func (w *watcher) wants(app, channel string) bool {
	if app != w.app {
		return false
	}
	switch {
	case w.channel == "" && !w.prefix:
		return true
	case w.prefix:
		return channel != "" && strings.HasPrefix(channel, w.channel)
	}
	return channel == w.channel
}

// emit hands e to every watcher that wants it, without waiting: over a
// watcher's rate or queue the event is counted as skipped.
func (c *console) emit(e Event) {
	var now time.Time
	c.mu.RLock()
	defer c.mu.RUnlock()
	for w := range c.watchers {
		if !w.wants(e.App, e.Channel) {
			continue
		}
		if now.IsZero() {
			now = c.now()
			e.Time = now.UnixMilli()
		}
		if !w.bucket.Allow(now, 1) {
			w.skipped.Add(1)
			continue
		}
		select {
		case w.events <- e:
		default:
			w.skipped.Add(1)
		}
	}
}

func (c *console) Connected(app, socketID, transport string) {
	c.emit(Event{Type: typeConnected, App: app, SocketID: socketID, Transport: transport})
}

func (c *console) Disconnected(app, socketID, reason string) {
	c.emit(Event{Type: typeDisconnected, App: app, SocketID: socketID, Reason: reason, Code: closeCodes[reason]})
}

// closeCodes are the close codes the reasons that have one always send
// (Pusher protocol, "Error codes"); the others vary (a client's own code,
// the server's 4003, 4009 or 4200, a protocol error's 1002 or 1009) and
// are not recorded per connection.
var closeCodes = map[string]int{
	connstats.Timeout.String(): int(pusher.PongTimeout),
	connstats.Slow.String():    int(pusher.OverCapacity),
}

func (c *console) Subscribed(app, channel, socketID string) {
	c.emit(Event{Type: typeSubscribed, App: app, Channel: channel, SocketID: socketID})
}

func (c *console) Unsubscribed(app, channel, socketID string) {
	c.emit(Event{Type: typeUnsubscribed, App: app, Channel: channel, SocketID: socketID})
}

func (c *console) MemberAdded(app, channel, user string) {
	c.emit(Event{Type: typeMemberAdded, App: app, Channel: channel, User: user})
}

func (c *console) MemberRemoved(app, channel, user string) {
	c.emit(Event{Type: typeMemberRemove, App: app, Channel: channel, User: user})
}

// WebhookConsole is the console's part that webhooks report to (see
// webhook.Options.Delivered).
type WebhookConsole interface {
	WebhookDelivered(app, url string, events int, err error)
}

var _ WebhookConsole = (*console)(nil)

// WebhookDelivered reports a webhook request: sent (answered 2xx) or
// failed, with why. The reason of a failed connection is the network
// error without the URL, which may carry credentials.
func (c *console) WebhookDelivered(app, rawURL string, events int, err error) {
	e := Event{Type: typeWebhookSent, App: app, URL: config.ShownURL(rawURL), Events: events}
	if err != nil {
		e.Type = typeWebhookFail
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		e.Reason = err.Error()
	}
	c.emit(e)
}

// Published reports one event per channel of p: a client event when its
// name says so, else an API event.
func (c *console) Published(app string, p hub.Publication) {
	typ := typeAPIEvent
	if strings.HasPrefix(p.Event, pusher.ClientEventPrefix) {
		typ = typeClientEvent
	}
	for _, name := range p.Channels {
		e := Event{Type: typ, App: app, Channel: name, Event: p.Event, SocketID: p.SocketID, User: p.UserID}
		e.Data, e.Size, e.Hidden = shownData(name, p.Data)
		c.emit(e)
	}
}

// shownData is what the console shows of data published on channel: its
// size, and the data itself (cut to maxShownData) unless the channel is
// encrypted (Pusher docs, "Encrypted channels": the server must not read
// it, and neither may its console).
func shownData(channel, data string) (shown string, size int, hidden bool) {
	if pusher.KindOf(channel).IsEncrypted() {
		return "", len(data), true
	}
	if len(data) > maxShownData {
		return data[:maxShownData], len(data), false
	}
	return data, len(data), false
}
