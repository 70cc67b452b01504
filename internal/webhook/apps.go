package webhook

import (
	"maps"
	"slices"

	"github.com/roostproject/roost/internal/config"
)

// SetApp makes a's webhooks the ones its events go to from now on: an app
// from a database, read when first asked for and again at each refresh.
// Unchanged settings cost nothing; changed ones (URLs, event types, key or
// secret) start new senders and retire the old ones, which send what they
// have queued, once, and stop. An app without webhooks is removed.
func (w *Webhooks) SetApp(a *config.App) {
	w.appsMu.Lock()
	defer w.appsMu.Unlock()
	old := w.current(a.ID)
	if w.shut || old == nil && len(a.Webhooks) == 0 || old != nil && old.same(a) {
		return
	}
	next := maps.Clone(*w.apps.Load())
	delete(next, a.ID)
	if len(a.Webhooks) > 0 {
		next[a.ID] = w.newApp(a, old)
	}
	w.apps.Store(&next)
	if old != nil {
		old.retire()
	}
}

// RemoveApp stops the webhooks of the app with id (its row was deleted);
// what they have queued is sent once.
func (w *Webhooks) RemoveApp(id string) {
	w.appsMu.Lock()
	defer w.appsMu.Unlock()
	old := w.current(id)
	if w.shut || old == nil {
		return
	}
	next := maps.Clone(*w.apps.Load())
	delete(next, id)
	w.apps.Store(&next)
	old.retire()
}

// retireAll retires every app for Close: their senders send what is
// queued without waiting for batches to fill, and do not retry.
func (w *Webhooks) retireAll() {
	w.appsMu.Lock()
	defer w.appsMu.Unlock()
	w.shut = true
	for _, a := range *w.apps.Load() {
		a.retire()
	}
}

// same reports whether a's webhooks are the ones x was built from.
func (x *app) same(a *config.App) bool {
	return x.key == a.Key && x.secret == a.Secret &&
		slices.EqualFunc(x.hooks, a.Webhooks, func(p, q config.Webhook) bool {
			return p.URL == q.URL && slices.Equal(p.EventTypes, q.EventTypes)
		})
}

// retire stops x taking events; its senders send what is queued and stop.
func (x *app) retire() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.retired {
		x.retired = true
		close(x.stop)
	}
}
