package natsstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/webhook"
)

// hold is the value of a pending event's key in the webhooks bucket: its
// mark (a pending token, or the receipt of what ended it; see
// webhook.OpKind) and when it lapses.
type hold struct {
	Token   string         `json:"t"`
	Expires int64          `json:"x"` // Unix ns
	Done    webhook.OpKind `json:"d,omitempty"`
}

// Hold implements cluster.Store: each operation is a compare-and-set on
// the event's key, run in order; after a failure the rest err towards
// sending.
func (n *NATS) Hold(ctx context.Context, ops []webhook.Op) {
	b, err := n.open()
	for i := range ops {
		if err == nil {
			err = apply(ctx, b.webhooks, &ops[i])
		}
		if err != nil {
			n.link.Suspect()
			cluster.TowardsSending(ops[i : i+1])
		}
	}
}

// apply does op on its key and sets op.Found; a lapsed hold counts as
// none.
func apply(ctx context.Context, kv jetstream.KeyValue, op *webhook.Op) error {
	k := token(op.Key)
	if op.Kind == webhook.OpHold {
		v, _ := json.Marshal(hold{Token: op.Token, Expires: time.Now().Add(op.TTL).UnixNano()})
		_, err := kv.Put(ctx, k, v)
		return err
	}
	for {
		e, err := lookup(ctx, kv, k)
		if e == nil {
			return err
		}
		var h hold
		json.Unmarshal(e.Value(), &h)
		was := webhook.Mark{Token: h.Token, Done: h.Done}
		m := op.ApplyTo(was, time.Now().UnixNano() < h.Expires)
		if m == was {
			return nil // nothing changed: not found, or found by its receipt
		}
		h.Token, h.Done = m.Token, m.Done
		v, _ := json.Marshal(h)
		_, err = kv.Update(ctx, k, v, e.Revision())
		if !conflict(err) {
			return err
		}
	}
}
