package admission

import (
	"context"
	"log/slog"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
)

// Apps is where a Door finds the app a session asks for (apps.Source).
type Apps interface {
	// CachedByKey returns the app with key when memory knows whether it
	// exists (nil: it does not), and false when only the app store can
	// tell. It never blocks.
	CachedByKey(key string) (*config.App, bool)
	// ByKey returns the app with key, nil if there is none, waiting for
	// the app store if it must; an error says the store did not answer.
	ByKey(ctx context.Context, key string) (*config.App, error)
}

// Config is what a Door is built from.
type Config struct {
	// Caps are the node's caps; SetCaps changes them.
	Caps Caps
	// Apps finds the app of each session.
	Apps Apps
	// AppConnections returns how many sessions the app with this id holds
	// now: the one figure apps[].max_connections is held to.
	AppConnections func(appID string) int
	// Logger gets a line for each session refused over a cap or for its
	// Origin; nil logs nothing. Refusals come in floods: it should be
	// rate-limited (internal/ratelog).
	Logger *slog.Logger
}

// Door decides whether a client may open a session, for every transport,
// and counts the refusals by transport and reason. It is safe for
// concurrent use.
type Door struct {
	gate     *gate
	apps     Apps
	appConns func(appID string) int
	log      *slog.Logger
	refused  [NumTransports][NumReasons]atomic.Int64
}

// New returns a Door for cfg.
func New(cfg Config) *Door {
	return &Door{gate: newGate(cfg.Caps), apps: cfg.Apps, appConns: cfg.AppConnections, log: cfg.Logger}
}

// Request is what a transport knows of a client asking to open a session.
type Request struct {
	Transport Transport  // which transport asks: the label of its refusals
	AppKey    string     // the key in the path (/app/{key})
	Query     Query      // the request's raw query: protocol, version
	Origin    string     // the Origin header, "" when none was sent
	Client    netip.Addr // the client, as trusted proxies name it
	// Inline says the caller cannot wait and cannot refuse in Pusher's
	// terms (an epoll loop): where the decision needs either, Admit
	// answers Defer, having claimed and counted nothing.
	Inline bool
}

// Admit decides about req. It applies, in this order, the app's own rules
// where memory holds the app (it exists, allows the Origin, is enabled,
// speaks the protocol, has room under its quota), then the node's caps
// (connections on the node and per address, handshake rates, memory),
// then the app's rules for an app only the store knows, read after the
// caps so that they hold back a flood of lookups. A refusal by the caps
// comes first, then one for the Origin, then one in Pusher's terms.
// Every refusal is counted; an Admit holds a place until Release.
func (d *Door) Admit(ctx context.Context, req Request) Decision {
	app, known := d.apps.CachedByKey(req.AppKey)
	var dec Decision
	if known {
		dec = d.judge(app, nil, &req)
	}
	if req.Inline && (!known || dec.Kind == RefusePusher) {
		return Decision{Kind: Defer}
	}
	t, why := d.gate.admit(req.Client, time.Now())
	if why != Admitted {
		return d.count(req.Transport, refusal(why), &req)
	}
	if !known {
		app, err := d.apps.ByKey(ctx, req.AppKey)
		dec = d.judge(app, err, &req)
	}
	if dec.Kind != Admit {
		d.gate.release(t)
		return d.count(req.Transport, dec, &req)
	}
	dec.Ticket = t
	return dec
}

// judge applies the app's own rules to req, with no effect: app is the
// app asked for (nil if there is none) or storeErr why the store could
// not say.
func (d *Door) judge(app *config.App, storeErr error, req *Request) Decision {
	switch {
	case storeErr != nil:
		return inPusherTerms(nil, pusher.OverCapacity, "app store unavailable, try again later")
	case app == nil:
		return inPusherTerms(nil, pusher.AppNotFound, "unknown app key")
	case req.Origin != "" && !app.AllowsOrigin(req.Origin):
		return refusal(Origin)
	case !app.IsEnabled():
		return inPusherTerms(app, pusher.AppDisabled, "app is disabled")
	}
	if code, msg := checkProtocol(req.Query); code != 0 {
		return inPusherTerms(app, code, msg)
	}
	if d.overQuota(app) {
		return inPusherTerms(app, pusher.OverQuota, "app is over its connection quota")
	}
	return Decision{Kind: Admit, App: app}
}

// overQuota reports whether app holds its max_connections already.
func (d *Door) overQuota(app *config.App) bool {
	return app.MaxConnections > 0 && d.appConns(app.ID) >= app.MaxConnections
}

// Refuse counts a refusal the transport decided itself for reason r
// (Descriptors: no descriptor left for the socket; Invalid: not a valid
// handshake) and returns the Decision to render, as Admit would have.
func (d *Door) Refuse(tr Transport, r Reason) Decision {
	return d.count(tr, refusal(r), nil)
}

// count counts and logs the refusal dec of req (nil: none known).
func (d *Door) count(tr Transport, dec Decision, req *Request) Decision {
	d.refused[tr][dec.Reason].Add(1)
	switch {
	case d.log == nil:
	case dec.Reason.Overload():
		d.log.Warn("handshake refused: over a limit", "transport", tr.String(), "reason", dec.Reason.String())
	case dec.Reason == Origin:
		d.log.Warn("handshake refused: origin not allowed", "transport", tr.String(), "origin", req.Origin)
	}
	return dec
}

// Release gives back an admitted session's place.
func (d *Door) Release(t Ticket) { d.gate.release(t) }

// Refused returns the refusals counted on tr so far, indexed by Reason.
func (d *Door) Refused(tr Transport) [NumReasons]int64 {
	var out [NumReasons]int64
	for r := range out {
		out[r] = d.refused[tr][r].Load()
	}
	return out
}

// SetCaps replaces the caps (its Memory is ignored: the Door keeps the one
// it was built with). Admitted sessions keep their places: a cap lowered
// below what is open refuses new sessions and closes none. A per-address
// cap set where none was counts only the sessions admitted from then on; a
// changed per-address rate starts every address's bucket full again.
func (d *Door) SetCaps(c Caps) { d.gate.setCaps(c) }

// Caps returns the caps the Door applies.
func (d *Door) Caps() Caps { return d.gate.caps() }
