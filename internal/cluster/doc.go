// Package cluster joins roost nodes through Redis so that a cluster behaves
// exactly like one node (docs/design.md, "Across a cluster").
//
// Messages travel over Redis pub/sub, one topic per channel; a node
// subscribes to a topic only while it has local subscribers, delivers its own
// publishes locally at once and ignores their echo. Presence members,
// signed-in users and subscription counts live in Redis hashes whose entries
// record each node's share ({"n":{node:count}}), updated by Lua scripts that
// report the moment a total leaves or reaches zero: that is when
// member_added / member_removed and online / offline are due, exactly once
// per cluster. Each node refreshes a heartbeat key; when one stops (kill -9),
// a survivor takes a lock and removes the dead node's shares, announcing the
// members that vanish with it.
//
// Redis can go away. Local delivery never waits for it: outbound messages
// queue up to a cap (drops are counted), every state query falls back to the
// node's own answer, and when Redis comes back the node re-subscribes and
// writes its shares again (Redis may have restarted empty).
//
// Goroutines: one publisher (drains the outbox in order), one receiver, one
// subscription manager, one ticker (heartbeat, count flush, reaping).
package cluster
