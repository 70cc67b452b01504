// Package api serves the Pusher Channels HTTP API (Pusher docs, "HTTP API
// reference") under /apps/, so that unmodified server SDKs — the Node
// `pusher` package first among them — can publish events, query channels and
// presence members, and terminate a user's connections on roost.
//
// Every request first counts against its client address's cap on requests
// in progress (429) and has its body put under a deadline. It then passes
// the same gate before its endpoint runs, in this order: the app must exist
// (404), the body must fit the size limit (413, judged from Content-Length),
// the signature, key, timestamp and the presence of body_md5 must verify from
// the query alone (401, or 400 when malformed), and the app must be enabled
// (403). Only then is the body read: if the bodies being received fit the
// memory budget (else 503), within the deadline (else 408), and it must be
// the body whose MD5 was signed (401). A client that cannot sign a request
// therefore never makes the server wait for a body.
//
// An endpoint then validates its whole input — every event of a batch —
// before it hands anything to the Backend, so a rejected request publishes
// nothing. The app's rates are taken just before the work and answered 429
// when spent: max_read_req_per_sec by each query, max_backend_events_per_sec
// by each event once per channel, after the whole request has been
// validated. They count on this node only.
//
// The handler keeps no per-request state beyond the request itself, a
// pooled body buffer and its counters; it is safe for concurrent use.
package api
