package dashboard

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// peerTTL is how long a node's latest sample counts in the cluster view;
// a node that wrote none for this long is left out (and its entry
// removed).
const peerTTL = 15 * time.Second

// peerWait bounds each call of the cluster view to the board.
const peerWait = time.Second

// Board is where the nodes of a cluster share their latest samples, one
// entry per node, in the cluster's store (a cluster.Node is one).
type Board interface {
	Post(ctx context.Context, node string, v []byte) error
	Entries(ctx context.Context) (map[string][]byte, error)
	Unpost(ctx context.Context, nodes ...string)
}

// peers shares each node's latest sample on the cluster's board, so that
// every node's dashboard can show the whole cluster: each entry is one
// node's sample as JSON.
type peers struct{ board Board }

// peerSample is one node's entry.
type peerSample struct {
	Node   string `json:"node"`
	Sample Sample `json:"sample"`
}

// publish writes this node's latest sample.
func (p *peers) publish(node string, s Sample) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerWait)
	defer cancel()
	return p.board.Post(ctx, node, b)
}

// read returns every node's latest sample newer than peerTTL, and removes
// the older ones.
func (p *peers) read(ctx context.Context, now time.Time) ([]peerSample, error) {
	ctx, cancel := context.WithTimeout(ctx, peerWait)
	defer cancel()
	all, err := p.board.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]peerSample, 0, len(all))
	var stale []string
	for node, raw := range all {
		var s Sample
		if json.Unmarshal(raw, &s) != nil || now.UnixMilli()-s.Time > peerTTL.Milliseconds() {
			stale = append(stale, node)
			continue
		}
		out = append(out, peerSample{Node: node, Sample: s})
	}
	if len(stale) > 0 {
		p.board.Unpost(ctx, stale...)
	}
	return out, nil
}

// leave removes node's entry, so the others stop listing it at once.
func (p *peers) leave(node string) {
	ctx, cancel := context.WithTimeout(context.Background(), peerWait)
	defer cancel()
	p.board.Unpost(ctx, node)
}

// startPeers joins the cluster view when the node is in a cluster: each
// sample is shared, and the overview lists every node's.
func (d *Dashboard) startPeers() {
	if d.cfg.Board == nil {
		return
	}
	p := &peers{board: d.cfg.Board}
	d.peers = p
	d.history.shared = func(s Sample) {
		if err := p.publish(d.cfg.Node, s); err != nil {
			d.cfg.Logger.Debug("dashboard: sharing the node's figures", "err", err)
		}
	}
}

// clusterView adds the nodes' latest samples to an overview answer, or
// why they could not be read.
func (d *Dashboard) clusterView(ctx context.Context, out map[string]any) {
	if d.peers == nil {
		return
	}
	nodes, err := d.peers.read(ctx, d.cfg.Now())
	if err != nil {
		out["cluster_error"] = "reading the other nodes' figures from the cluster's store: " + err.Error()
		return
	}
	slices.SortFunc(nodes, func(a, b peerSample) int { return strings.Compare(a.Node, b.Node) })
	out["nodes"] = nodes
}
