package dashboard

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// peerTTL is how long a node's latest sample counts in the cluster view;
// a node that wrote none for this long is left out (and its entry
// removed).
const peerTTL = 15 * time.Second

// peerWait bounds each Redis command of the cluster view.
const peerWait = time.Second

// peers shares each node's latest sample through Redis, so that every
// node's dashboard can show the whole cluster: one hash per cluster whose
// fields are node ids and whose values are the samples as JSON. One key
// keeps it to one slot of a Redis Cluster as well.
type peers struct {
	rdb redis.UniversalClient
	key string
}

// newPeers shares samples through rdb under the cluster's redis.prefix.
func newPeers(rdb redis.UniversalClient, prefix string) *peers {
	return &peers{rdb: rdb, key: prefix + ":dashboard:nodes"}
}

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
	return p.rdb.HSet(ctx, p.key, node, b).Err()
}

// read returns every node's latest sample newer than peerTTL, and removes
// the older ones.
func (p *peers) read(ctx context.Context, now time.Time) ([]peerSample, error) {
	ctx, cancel := context.WithTimeout(ctx, peerWait)
	defer cancel()
	all, err := p.rdb.HGetAll(ctx, p.key).Result()
	if err != nil {
		return nil, err
	}
	out := make([]peerSample, 0, len(all))
	var stale []string
	for node, raw := range all {
		var s Sample
		if json.Unmarshal([]byte(raw), &s) != nil || now.UnixMilli()-s.Time > peerTTL.Milliseconds() {
			stale = append(stale, node)
			continue
		}
		out = append(out, peerSample{Node: node, Sample: s})
	}
	if len(stale) > 0 {
		p.rdb.HDel(ctx, p.key, stale...)
	}
	return out, nil
}

// leave removes node's entry, so the others stop listing it at once, and
// closes the connection.
func (p *peers) leave(node string) {
	ctx, cancel := context.WithTimeout(context.Background(), peerWait)
	defer cancel()
	p.rdb.HDel(ctx, p.key, node)
	p.rdb.Close()
}

// startPeers joins the cluster view when the node is in a cluster: each
// sample is shared, and the overview lists every node's.
func (d *Dashboard) startPeers() {
	if d.cfg.Redis == nil {
		return
	}
	p := newPeers(d.cfg.Redis, d.cfg.RedisPrefix)
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
		out["cluster_error"] = "reading the other nodes' figures from Redis: " + err.Error()
		return
	}
	slices.SortFunc(nodes, func(a, b peerSample) int { return strings.Compare(a.Node, b.Node) })
	out["nodes"] = nodes
}
