package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/webhook"
)

// hold is the value of a pending event's key in the webhooks bucket.
type hold struct {
	Token   string `json:"t"`
	Expires int64  `json:"x"` // Unix ns
}

// Hold implements cluster.Store: each operation is a compare-and-set on
// the event's key, run in order; after a failure the rest err towards
// sending.
func (n *NATS) Hold(ctx context.Context, ops []webhook.Op) {
	b, err := n.open()
	for i := range ops {
		op := &ops[i]
		if err == nil {
			op.Found, err = apply(ctx, b.webhooks, op)
		}
		if err != nil {
			n.link.Suspect()
			op.Found = op.Kind == webhook.OpTake
		}
	}
}

func apply(ctx context.Context, kv jetstream.KeyValue, op *webhook.Op) (bool, error) {
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
