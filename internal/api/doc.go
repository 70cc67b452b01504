// Package api serves the Pusher Channels HTTP API (Pusher docs, "HTTP API
// reference") under /apps/, so that unmodified server SDKs — the Node
// `pusher` package first among them — can publish events, query channels and
// presence members, and terminate a user's connections on roost.
//
// Every request passes the same gate before its endpoint runs, in this order:
// the app must exist (404), the body must fit the size limit (413, judged from
// Content-Length before anything is read), the signature, key and timestamp
// must verify (401, or 400 when malformed), and the app must be enabled (403).
// An endpoint then validates its whole input — every event of a batch — before
// it hands anything to the Backend, so a rejected request publishes nothing.
//
// The handler keeps no per-request state beyond the request itself and a
// pooled body buffer; it is safe for concurrent use.
package api
