package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// record is what the outbox keeps of one event: queued for one URL (URL
// and Event set), or held for the delay (Held, Key, Token and Due set).
// ID is the event's id (X-Roost-Webhook-Events), kept when another node
// takes the record over, so that a receiver can drop a duplicate.
type record struct {
	ID    string          `json:"id"`
	App   string          `json:"app"`
	Ch    string          `json:"ch"`
	At    int64           `json:"at"` // queued, Unix ns
	URL   string          `json:"url,omitempty"`
	Event json.RawMessage `json:"ev,omitempty"`
	Held  *Event          `json:"held,omitempty"`
	Key   string          `json:"key,omitempty"`
	Token string          `json:"tok,omitempty"`
	Due   int64           `json:"due,omitempty"` // Unix ns
	// Unheld marks a held event whose hold the store did not answer (see
	// Webhooks.handle).
	Unheld bool `json:"unheld,omitempty"`
}

// eventID is the id of the event numbered seq on this node, unless it
// came with one (taken over from another node).
func (w *Webhooks) eventID(seq uint64, id string) string {
	return string(appendID(nil, w.node, &item{seq: seq, id: id}))
}

// journalQueued records e, just queued for url of app, in the outbox.
func (w *Webhooks) journalQueued(a *app, url string, e *item) {
	if w.journal == nil {
		return
	}
	data, _ := json.Marshal(record{ID: w.eventID(e.seq, e.id), App: a.id, Ch: e.ch, At: e.at, URL: url, Event: e.ev})
	w.journal.put(e.seq, data, a.stats)
}

// journalHeld records f, just held until due, in the outbox;
// id is the event's id if it came with one.
func (w *Webhooks) journalHeld(f *fact, due time.Time, id string) {
	if w.journal == nil {
		return
	}
	f.rec = w.evSeq.Add(1)
	data, _ := json.Marshal(record{ID: w.eventID(f.rec, id), App: f.app.id, Ch: f.ev.Channel, At: time.Now().UnixNano(),
		Held: &f.ev, Key: f.key, Token: f.token, Due: due.UnixNano(), Unheld: f.unheld})
	w.journal.put(f.rec, data, f.app.stats)
}

// decodeRecord reads a record written by journalQueued or journalHeld;
// false for anything else (it came from the store, which may hold other
// writers' data or garbage).
func decodeRecord(data []byte) (record, bool) {
	var r record
	if json.Unmarshal(data, &r) != nil || r.App == "" {
		return record{}, false
	}
	if r.Held != nil {
		return r, r.Key != "" && r.Token != ""
	}
	return r, r.URL != "" && json.Valid(r.Event)
}

// Adopt takes over the undelivered events of a dead node (its outbox
// entries, in order) and returns once they are in this node's outbox: the
// queued ones go to the end of their URL's queue, in order, with their
// ids; the held ones wait out what is left of their delay and are sent if
// the store still holds them. Events of an app or URL that no longer has
// webhooks here are dropped. It is the cluster's Settings.Adopt.
func (w *Webhooks) Adopt(ctx context.Context, entries []Entry) error {
	if w.journal == nil {
		return fmt.Errorf("webhook: no outbox to take %d events into", len(entries))
	}
	for _, e := range entries {
		r, ok := decodeRecord(e.Data)
		if !ok {
			continue // not ours: nothing can send it
		}
		a := w.current(r.App)
		if a == nil {
			continue
		}
		a.stats.adopted.Add(1)
		if r.Held != nil {
			w.adoptHeld(a, &r)
		} else {
			w.adoptQueued(a, &r)
		}
	}
	return w.journal.sync(ctx)
}

// adoptQueued queues r for its URL, if a still has it.
func (w *Webhooks) adoptQueued(a *app, r *record) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.senders, func(s *sender) bool { return s.url == r.URL })
	if a.retired || i < 0 {
		return
	}
	e := item{ev: slices.Clone(r.Event), ch: r.Ch, at: r.At, seq: w.evSeq.Add(1), id: r.ID}
	w.journalQueued(a, r.URL, &e)
	a.senders[i].q.pushItem(e)
}

// adoptHeld holds r's event until its due time, then takes it as if this
// node had held it.
func (w *Webhooks) adoptHeld(a *app, r *record) {
	f := fact{app: a, op: opTake, ev: *r.Held, key: r.Key, token: r.Token, unheld: r.Unheld}
	due := time.Unix(0, r.Due)
	w.journalHeld(&f, due, r.ID)
	if !w.delays.at(due, f) {
		w.in.push(f, a.stats)
	}
}
