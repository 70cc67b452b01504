// Package webhook tells an app's backend what happened on its channels, the
// way Pusher's webhooks do (Pusher docs, "Webhooks"): signed JSON POSTs of
// channel_occupied, channel_vacated, member_added, member_removed,
// client_event, cache_miss and subscription_count events.
//
// The hub and the session report facts through Webhooks' methods, often
// from an epoll loop or with the hub's lock held, so each method only puts
// the fact on a bounded intake and returns. One goroutine takes facts off
// the intake: it holds channel_vacated and member_removed back for the
// configured delay (cancelled, with the matching channel_occupied or
// member_added, when the channel or user comes back), encodes each event
// once and queues it for every URL of the app that wants it. Each URL has
// one sender goroutine that batches its queue (a request carries at most
// batch_max events and waits at most batch_wait for them), signs the body
// with the app secret, posts up to four requests at once, and retries a
// failed request with exponential backoff and jitter until retry_for has
// passed. Order is kept per channel: a channel is in at most one request of
// a URL at a time, and its later events wait, moved aside by channel, while
// other channels' events go on; a failed request of several channels is
// retried as one per channel, so that a backend refusing one channel holds
// back no other. The queued events of an app are bounded in bytes; when
// over, the oldest are dropped and counted.
//
// Whether a delayed event is still due is decided by a Pending store: in
// memory on one node, in Redis in a cluster, so that the node that saw a
// channel vacated and the node that saw it occupied again agree.
//
// In a cluster every queued and held event is also written, by one
// journal goroutine and in order, to the node's Outbox in the cluster's
// store, and removed once delivered or dropped; the node that reaps a dead
// node hands its records to Adopt, which queues and holds them here. Each
// event has an id, kept across retries, splits and takeovers, sent in a
// header beside the request's own so that receivers can drop duplicates.
package webhook
