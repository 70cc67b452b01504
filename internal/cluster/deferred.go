package cluster

// This file keeps the departures a node holds in the store (see
// Departures.Hold) durable past the node's death. The store made such a
// departure already (the user's total is zero), so the reaper of the
// node finds nothing of the user left to remove; the departure lived only
// in the node's memory, and neither member_removed nor its webhook would
// be sent. So the node also records each one in its outbox, beside its
// webhook events, until it announces it or finds the member back, and the
// node that reaps it announces those nobody came back from.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/roostproject/roost/internal/webhook"
)

// departurePrefix starts the outbox keys of departure records; the
// webhook events' keys are hex digits alone (see webhook.Entry).
const departurePrefix = "departure-"

// departureKey is d's key in the node's outbox: a digest, since a key
// must be a NATS subject token and ids may hold any character.
func departureKey(d Departure) string {
	sum := sha256.Sum256([]byte(d.App + "\x00" + d.Channel + "\x00" + d.User))
	return departurePrefix + hex.EncodeToString(sum[:16])
}

// deferredToken is the token of the holds of node's deferred departures.
func deferredToken(node string) string { return "deferred:" + node }

// recordDeparture puts (held) or removes the record of d, a departure held
// in the store, in this node's outbox. One not written leaves the
// departure as it was before records: lost if the node dies before it
// announces it; one not removed is harmless, as its hold has ended (see
// takeDepartures).
func (n *Node) recordDeparture(ctx context.Context, d Departure, held bool) {
	var err error
	if held {
		data, _ := json.Marshal(d)
		err = n.store.OutboxWrite(ctx, n.id, []webhook.Entry{{Key: departureKey(d), Data: data}}, nil)
	} else {
		err = n.store.OutboxWrite(ctx, n.id, nil, []string{departureKey(d)})
	}
	if err != nil {
		n.log.Warn("deferred departure's record not written", "held", held, "channel", d.Channel, "err", err)
	}
}

// splitDepartures separates a dead node's departure records from its
// webhook events; a departure record it cannot read is dropped.
func splitDepartures(entries []webhook.Entry) (events []webhook.Entry, keys []string, held []Departure) {
	for _, e := range entries {
		if !strings.HasPrefix(e.Key, departurePrefix) {
			events = append(events, e)
			continue
		}
		keys = append(keys, e.Key)
		var d Departure
		if json.Unmarshal(e.Data, &d) == nil && d.App != "" {
			held = append(held, d)
		}
	}
	return events, keys, held
}

// errUnanswered is the error of a take of a dead node's holds that the
// store did not answer.
var errUnanswered = errors.New("the store did not answer the take of a deferred departure's hold")

// takeDepartures returns those of the dead node's held departures (its
// records) to announce: the user is no member, and the node's hold is
// still there, which this node takes. A comeback on any node cancelled the
// hold, the member back on the dead node cancelled it, the node's own
// announcement replaced it (with member webhooks) as well as removing the
// record, and it lapses soon after (departureHoldTTL): none of these is
// announced again. It asks before the dead node's shares are
// removed, so that a member back on the dead node counts as a member.
func (n *Node) takeDepartures(ctx context.Context, dead string, held []Departure) ([]Departure, error) {
	var gone []Departure
	var ops []webhook.Op
	for _, d := range held {
		member, err := n.store.IsMember(ctx, d.App, d.Channel, d.User)
		if err != nil {
			return nil, err
		}
		if !member {
			gone = append(gone, d)
			ops = append(ops, webhook.Op{Kind: webhook.OpTake, Key: webhook.RemovedKey(d.App, d.Channel, d.User), Token: deferredToken(dead)})
		}
	}
	if len(ops) == 0 {
		return nil, nil
	}
	n.store.Hold(ctx, ops)
	out := gone[:0]
	for i, op := range ops {
		if op.Unanswered {
			return nil, errUnanswered
		}
		if op.Found {
			out = append(out, gone[i])
		}
	}
	return out, nil
}

// holdOutage holds in the store each presence departure this node
// deferred while the store was away, once the node has written its shares
// again: that write made the departure in the store, so a comeback on
// another node is answered as a first join, and its member_added webhook
// is to find the member_removed held back, and the node's reaper the
// departure's record, as for any departure the store made while the node
// was not settled (Departures.Hold). One whose user is a member still (on
// another node) removed nobody, and is dropped; one the store cannot
// check stays deferred.
func (n *Node) holdOutage(ctx context.Context) {
	for _, d := range n.deferred.Unheld() {
		member, err := n.store.IsMember(ctx, d.App, d.Channel, d.User)
		switch {
		case err != nil:
			return
		case member:
			n.deferred.Cancel(d.App, d.Channel, d.User)
		default:
			n.deferred.Hold(d.App, d.Channel, d.User)
			n.holdDeparture(ctx, webhook.OpHold, d.App, d.Channel, d.User)
		}
	}
}
