// Package auth checks the HMAC-SHA256 signatures of the Pusher Channels
// protocol: the channel authorization and user authentication tokens that
// clients present over the WebSocket (Pusher docs, "Authentication and
// authorization signatures"), and the signed query string of every HTTP API
// request (Pusher docs, "HTTP API reference", "Generating authentication
// signatures").
//
// Every comparison of a secret-derived value is constant time, and no error
// ever carries the signature the server expected. The package holds no
// state: apps, keys and secrets are the caller's.
package auth
