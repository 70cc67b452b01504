// Package httphead reads an HTTP/1.1 request head without allocating, for
// a server that serves its commonest requests itself and passes every other
// one on to net/http.
//
// It is strict on purpose: it parses only heads that net/http reads the same
// way (RFC 9112 section 2 and 3 with CRLF line ends, field names that are
// tokens, no obsolete line folding, no control characters in a value) and
// reports anything else as not parsed, never as an error to answer: the
// caller passes such a request to net/http, which answers it as it always
// did.
package httphead
