package redisstore

import "strings"

// The keys and topics of a cluster, and the Redis Cluster slots they fall
// in (docs/cluster.md, "Keys and slots"). Every name starts with the
// prefix. The part in braces is the hash tag, the only part Redis Cluster
// hashes to pick a slot:
//
//   - a channel's topic, presence hash, cache key and held webhook events
//     are tagged {app:channel}, so all of them live on the shard that
//     carries the channel's messages, and a busy channel loads one shard;
//   - an app's subscription counts and signed-in users are one hash each,
//     tagged {app}: /channels and the watchlists read one key; each node's
//     receipts of its count batches for the app share the tag;
//   - the node-level keys (heartbeats, the node list, reap locks, each
//     node's list of presence channels) are tagged {nodes}, so that one
//     MGET reads every heartbeat.
//
// Each Lua script reads and writes one key (a count script also the
// node's receipts, tagged alike), so no script spans two slots;
// a pipeline may, and the cluster client splits it by slot. On one Redis
// the braces are only characters.

// chanKey names one of a channel's keys: topic "m", "presence", "cache".
func (r *Redis) chanKey(kind, app, channel string) string {
	return r.cfg.Prefix + ":" + kind + ":{" + app + ":" + channel + "}"
}

// appKey names one of an app's keys: "channels" (counts) or "users".
func (r *Redis) appKey(kind, app string) string {
	return r.cfg.Prefix + ":" + kind + ":{" + app + "}"
}

// nodeKey names a node-level key: "node", id (heartbeat), "nodes" (the
// list), "reap", id (lock), "node-presence", id (its presence channels).
func (r *Redis) nodeKey(parts ...string) string {
	return r.cfg.Prefix + ":{nodes}:" + strings.Join(parts, ":")
}

// topic is the pub/sub channel of one roost channel.
func (r *Redis) topic(app, channel string) string { return r.chanKey("m", app, channel) }

func (r *Redis) presenceKey(app, channel string) string { return r.chanKey("presence", app, channel) }
func (r *Redis) cacheKey(app, channel string) string    { return r.chanKey("cache", app, channel) }
func (r *Redis) channelsKey(app string) string          { return r.appKey("channels", app) }
func (r *Redis) usersKey(app string) string             { return r.appKey("users", app) }

// receiptsKey names this node's receipts of its last count batch for an
// app (see addScript): tagged {app}, on the slot of the app's counts.
func (r *Redis) receiptsKey(app string) string { return r.appKey("receipts", app) + ":" + r.node }

// webhookKey names a held webhook event. The webhooks name an event
// "kind:app:channel[:user]"; its key is tagged with the channel, so it
// lives with the channel's other keys. A name of another shape is kept
// whole, untagged.
func (r *Redis) webhookKey(event string) string {
	parts := strings.SplitN(event, ":", 4)
	if len(parts) < 3 {
		return r.cfg.Prefix + ":webhook:" + event
	}
	k := r.chanKey("webhook", parts[1], parts[2]) + ":" + parts[0]
	if len(parts) == 4 {
		k += ":" + parts[3]
	}
	return k
}

// slots is how many hash slots a Redis Cluster has.
const slots = 16384

// slot returns the Redis Cluster hash slot of a key or sharded channel:
// CRC16 (XMODEM) of its hash tag, or of the whole name when it has none,
// modulo 16384 (the Redis Cluster specification, "Keys distribution
// model").
func slot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc ^= uint16(key[k]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc % slots
}
