package natsstore

import (
	"context"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/webhook"
)

// A node's webhook outbox is the keys <node>.<entry key> of the outbox
// bucket. A write publishes the puts to the bucket's stream without
// waiting for each ack (they are stored in the order sent, over one
// connection), waits for the acks, then purges each removed key's subject,
// which leaves no delete marker behind (the bucket's keys are never read
// by revision, so no compare-and-set needs one). An entry lives at most
// cluster.RecordTTL, the bucket's TTL.

// publishChunk is how many puts are sent before their acks are awaited:
// below nats.go's limit of acks outstanding.
const publishChunk = 512

// outboxSubject is the subject of node's outbox entry k, or of all of
// node's with k ">".
func (n *NATS) outboxSubject(kv jetstream.KeyValue, node, k string) string {
	return "$KV." + kv.Bucket() + "." + node + "." + k
}

// OutboxWrite implements cluster.Outbox.
func (n *NATS) OutboxWrite(ctx context.Context, node string, puts []webhook.Entry, dels []string) error {
	return n.do(func(b *buckets) error {
		for chunk := range slices.Chunk(puts, publishChunk) {
			if err := n.publishAll(ctx, b.outbox, node, chunk); err != nil {
				return err
			}
		}
		if len(dels) == 0 {
			return nil
		}
		stream, err := n.js.Stream(ctx, "KV_"+b.outbox.Bucket())
		for i := 0; err == nil && i < len(dels); i++ {
			err = stream.Purge(ctx, jetstream.WithPurgeSubject(n.outboxSubject(b.outbox, node, dels[i])))
		}
		return err
	})
}

// publishAll publishes puts and waits for every ack.
func (n *NATS) publishAll(ctx context.Context, kv jetstream.KeyValue, node string, puts []webhook.Entry) error {
	acks := make([]jetstream.PubAckFuture, len(puts))
	for i, e := range puts {
		f, err := n.js.PublishAsync(n.outboxSubject(kv, node, e.Key), e.Data)
		if err != nil {
			return err
		}
		acks[i] = f
	}
	for _, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// OutboxRead implements cluster.Outbox.
func (n *NATS) OutboxRead(ctx context.Context, node string) ([]webhook.Entry, error) {
	return with(n, func(b *buckets) (out []webhook.Entry, err error) {
		err = scanRaw(ctx, b.outbox, node+".>", func(k string, v []byte) {
			out = append(out, webhook.Entry{Key: strings.TrimPrefix(k, node+"."), Data: v})
		})
		slices.SortFunc(out, func(a, b webhook.Entry) int { return strings.Compare(a.Key, b.Key) })
		return out, err
	})
}

// OutboxClear implements cluster.Outbox.
func (n *NATS) OutboxClear(ctx context.Context, node string) error {
	return n.do(func(b *buckets) error {
		stream, err := n.js.Stream(ctx, "KV_"+b.outbox.Bucket())
		if err == nil {
			err = stream.Purge(ctx, jetstream.WithPurgeSubject(n.outboxSubject(b.outbox, node, ">")))
		}
		return err
	})
}
