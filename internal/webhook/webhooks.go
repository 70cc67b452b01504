package webhook

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/hub"
)

// Options configures Webhooks.
type Options struct {
	// Apps are the apps; only those with webhooks cost anything.
	Apps []config.App
	// Settings time, batch, retry and bound the webhooks.
	Settings config.Webhooks
	// Node makes the tokens of this node's holds unique in a shared
	// Pending; any string unique in the cluster.
	Node string
	// Transport carries the requests. Zero value (nil) means
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Delivered, when not nil, is told the outcome of every request: the
	// app, the URL, the events it carried, and nil or why it failed. It is
	// called from the senders' goroutines and must not block. The
	// dashboard's debug console shows it.
	Delivered func(app, url string, events int, err error)
}

// Webhooks delivers every app's webhooks. It is a hub.Observer; CacheMiss
// is session.Env's OnCacheMiss. Its methods never block.
type Webhooks struct {
	// apps is the current set of apps with webhooks, replaced whole (copy
	// on write) by SetApp and RemoveApp under appsMu, read without a lock.
	apps    atomic.Pointer[map[string]*app]
	appsMu  sync.Mutex // serialises the writers of apps; guards shut
	shut    bool       // Close has begun: apps no longer change
	client  *http.Client
	cfg     config.Webhooks
	pending Pending
	node    string
	seq     atomic.Uint64 // hold tokens
	evSeq   atomic.Uint64 // event ids and outbox keys
	journal *journal      // the cluster's outbox; nil on a single node
	in      intake
	delays  delays
	log     *slog.Logger
	// delivered is Options.Delivered.
	delivered func(app, url string, events int, err error)

	closeOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
	intakeG   sync.WaitGroup // the intake goroutine
	senders   sync.WaitGroup
	journalG  sync.WaitGroup // the outbox's writer
}

var _ hub.Observer = (*Webhooks)(nil)

// app is one app's webhooks, as one version of its settings defined them.
// When the settings change, a new app replaces it, sharing its counters and
// byte budget, and it is retired: its senders send what it has queued and
// stop.
type app struct {
	id          string
	key, secret string
	hooks       []config.Webhook
	wants       uint8 // event types any URL wants, by bit (see bit)
	senders     []*sender
	wantsOf     []uint8 // event types each sender wants
	stats       *counters
	budget      *budget

	mu      sync.Mutex    // guards retired; held while queueing, so nothing is queued once retired
	retired bool          // replaced or removed: events go to the current app
	stop    chan struct{} // closed when retired: the senders send what is queued and stop
}

// bit is the flag of event type name in a wants mask.
func bit(name string) uint8 { return 1 << slices.Index(config.WebhookEventTypes, name) }

// New starts one sender per webhook URL. Facts reported before Start wait
// in the intake.
func New(o Options) *Webhooks {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	w := &Webhooks{cfg: o.Settings, node: o.Node, in: newIntake(), log: o.Logger,
		client: newClient(o.Settings.Timeout, o.Transport), delivered: o.Delivered}
	w.delays.push = w.in.push
	w.ctx, w.cancel = context.WithCancel(context.Background())
	apps := make(map[string]*app)
	for i := range o.Apps {
		if len(o.Apps[i].Webhooks) > 0 {
			apps[o.Apps[i].ID] = w.newApp(&o.Apps[i], nil)
		}
	}
	w.apps.Store(&apps)
	return w
}

// Start starts taking facts off the intake. p decides whether delayed
// events are still due; nil means in memory, right for one node only (a
// cluster shares one store, so that a channel vacated on one node and
// occupied again on another within the delay sends nothing). out, when not
// nil, is the cluster's outbox, where every event waits until it is
// delivered or dropped. The cluster is built after Webhooks, which it
// reports to, hence this second step.
func (w *Webhooks) Start(p Pending, out Outbox) {
	if p == nil {
		p = newMemoryPending()
	}
	w.pending = p
	if out != nil {
		w.journal = newJournal(out)
		w.journalG.Go(func() { w.journal.run(w.ctx) })
	}
	w.intakeG.Add(1)
	go func() { defer w.intakeG.Done(); w.run() }()
}

// newApp starts the senders of a's webhooks; a replacement takes over the
// counters and the byte budget of old, the version it replaces (nil for a
// new app).
func (w *Webhooks) newApp(a *config.App, old *app) *app {
	x := &app{id: a.ID, key: a.Key, secret: a.Secret, hooks: slices.Clone(a.Webhooks), stop: make(chan struct{})}
	if old != nil {
		x.stats, x.budget = old.stats, old.budget
	} else {
		x.stats, x.budget = newCounters(), &budget{max: int64(w.cfg.QueueBytes)}
	}
	for i := range a.Webhooks {
		hook := &a.Webhooks[i]
		var wants uint8
		for _, name := range config.WebhookEventTypes {
			if hook.Wants(name) {
				wants |= bit(name)
			}
		}
		s := newSender(sender{url: hook.URL, key: a.Key, secret: a.Secret, node: w.node, q: newQueue(x.budget, x.stats, &w.journal),
			stats: x.stats, cfg: &w.cfg, client: w.client, log: w.log, closing: x.stop,
			app: a.ID, delivered: w.delivered})
		x.senders, x.wantsOf, x.wants = append(x.senders, s), append(x.wantsOf, wants), x.wants|wants
		w.senders.Add(1)
		go func() {
			defer w.senders.Done()
			s.run(w.ctx)
			s.q.dropAll(DropShutdown) // what the server stopped before sending
		}()
	}
	return x
}

// Enabled reports whether any app has webhooks now.
func (w *Webhooks) Enabled() bool { return len(*w.apps.Load()) > 0 }

// current returns the app with webhooks whose id is id, or nil.
func (w *Webhooks) current(id string) *app { return (*w.apps.Load())[id] }

// route encodes ev once and queues it for every URL of a that wants it. An
// event of a retired app goes to its current version, if it still has
// webhooks that want it.
func (w *Webhooks) route(a *app, ev *Event) {
	b := bit(ev.Name)
	for a != nil && a.wants&b != 0 {
		a.mu.Lock()
		if !a.retired {
			body, at := ev.AppendJSON(nil), time.Now().UnixNano()
			for i, s := range a.senders {
				if a.wantsOf[i]&b != 0 {
					e := item{ev: body, ch: ev.Channel, at: at, seq: w.evSeq.Add(1)}
					w.journalQueued(a, s.url, &e)
					s.q.pushItem(e)
				}
			}
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		a = w.current(a.id)
	}
}

// Stats returns each app's statistics, by app id.
func (w *Webhooks) Stats() []Stats {
	apps := *w.apps.Load()
	out := make([]Stats, 0, len(apps))
	for id, a := range apps {
		st := a.stats.snapshot(id)
		st.Oldest = a.oldest()
		out = append(out, st)
	}
	slices.SortFunc(out, func(x, y Stats) int { return strings.Compare(x.App, y.App) })
	return out
}

// oldest returns when the oldest event of a still to be delivered was
// queued; zero if there is none.
func (x *app) oldest() time.Time {
	var t time.Time
	for _, s := range x.senders {
		if o := s.q.oldest(); !o.IsZero() && (t.IsZero() || o.Before(t)) {
			t = o
		}
	}
	return t
}

// token returns a fresh hold token, unique in the cluster.
func (w *Webhooks) token() string {
	return w.node + "." + strconv.FormatUint(w.seq.Add(1), 10)
}
