package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/webhook"
)

// WebhookPending returns the cluster's record of delayed webhook events (a
// webhook.Pending): one key per event in the webhooks bucket, so that
// whichever node sees the comeback cancels it.
func (n *Node) WebhookPending() *Pending { return &Pending{n} }

// Pending keeps delayed webhook events in the webhooks bucket. Each
// operation is a compare-and-set on the event's key, run in order. While
// NATS is unreachable it errs towards sending: nothing is cancelled and
// every held event is due.
type Pending struct{ n *Node }

var _ webhook.Pending = (*Pending)(nil)

// hold is the value of a pending event's key.
type hold struct {
	Token   string `json:"t"`
	Expires int64  `json:"x"` // Unix ns
}

// Apply implements webhook.Pending.
func (p *Pending) Apply(ops []webhook.Op) {
	b := p.n.kv.Load()
	ctx, cancel := context.WithTimeout(p.n.ctx, p.n.cfg.SlowReply)
	defer cancel()
	var err error
	for i := range ops {
		op := &ops[i]
		if b == nil || err != nil || !p.n.link.Healthy.Load() {
			op.Found = op.Kind == webhook.OpTake
			continue
		}
		op.Found, err = p.apply(ctx, b.webhooks, op)
		if err != nil {
			p.n.link.Suspect()
			op.Found = op.Kind == webhook.OpTake
		}
	}
}

func (p *Pending) apply(ctx context.Context, kv jetstream.KeyValue, op *webhook.Op) (bool, error) {
	k := token(op.Key)
	if op.Kind == webhook.OpHold {
		v, _ := json.Marshal(hold{op.Token, time.Now().Add(op.TTL).UnixNano()})
		_, err := kv.Put(ctx, k, v)
		return false, err
	}
	for {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		var h hold
		json.Unmarshal(e.Value(), &h)
		live := time.Now().UnixNano() < h.Expires
		if op.Kind == webhook.OpTake && h.Token != op.Token {
			return false, nil
		}
		err = kv.Delete(ctx, k, jetstream.LastRevision(e.Revision()))
		if !conflict(err) {
			return live && err == nil, err
		}
	}
}
