// Package certs holds the certificates roost serves over TLS, and changes
// them while it runs: a pair of PEM files re-read when they change on disk
// or when asked (SIGHUP), or certificates got and renewed from an ACME
// server. A tls.Config's GetCertificate asks a Source on every handshake,
// so new handshakes get the new certificate while connections already open
// keep the one they shook hands with: a TLS session never looks at its
// certificate again.
//
// A pair that cannot be served (unreadable, a key that does not match, an
// expired certificate) is refused with an error logged, and the pair served
// before stays.
package certs
