package server

import (
	"strings"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/httphead"
	"github.com/roostproject/roost/internal/realip"
	"github.com/roostproject/roost/internal/ws"
)

// loopRequest is what a loop reads of a request head to decide whether it
// is a plain handshake (Server.Handshake): only a GET /app/{key} over
// HTTP/1.1 with one Host, no body and no repeated handshake field gets
// this far; everything else is for net/http.
type loopRequest struct {
	appKey string                  // {key} of GET /app/{key}
	query  admission.Query         // the raw query of the request-target
	seen   uint16                  // the loopFields read, a bit each
	values [len(loopFields)]string // their values, by index
}

// loopFields are the field names a loop reads, lower case, by index.
var loopFields = [...]string{"upgrade", "connection", "sec-websocket-version", "sec-websocket-key",
	"sec-websocket-extensions", "host", "origin", "x-forwarded-for", "forwarded"}

// Indexes in loopFields.
const (
	fieldUpgrade = iota
	fieldConnection
	fieldVersion
	fieldKey
	fieldExtensions
	fieldHost
	fieldOrigin
	fieldXForwardedFor
	fieldForwarded
)

// readLoopRequest parses head (httphead.Parse) into r. It declines, for
// net/http to serve, any request whose reading net/http might disagree
// with: another method, version or route; a path with escapes; a body
// (Content-Length or Transfer-Encoding) or an Expect; no Host; and a
// repeated Host, Origin, handshake or forwarding field.
func readLoopRequest(head []byte, r *loopRequest) bool {
	h, ok := httphead.Parse(string(head)) // the one copy: the key outlives head
	if !ok || h.Method != "GET" || h.Proto != "HTTP/1.1" {
		return false
	}
	if r.appKey, r.query, ok = appTarget(h.Target); !ok {
		return false
	}
	for f := h.Fields(); ; {
		name, value, more := f.Next()
		if !more {
			break
		}
		if !r.field(name, value) {
			return false
		}
	}
	return r.seen&(1<<fieldHost) != 0
}

// field reads one field line; false declines the request.
func (r *loopRequest) field(name, value string) bool {
	var lower [32]byte
	if len(name) > len(lower) {
		return true // longer than any name read here
	}
	for i := 0; i < len(name); i++ {
		lower[i] = name[i]
		if 'A' <= name[i] && name[i] <= 'Z' {
			lower[i] += 'a' - 'A'
		}
	}
	n := string(lower[:len(name)])
	if n == "content-length" || n == "transfer-encoding" || n == "expect" {
		return false // a body, or a wait for one: net/http's to serve
	}
	for i, f := range loopFields {
		if n != f {
			continue
		}
		if r.seen&(1<<i) != 0 {
			return false // a repeated field
		}
		r.seen |= 1 << i
		r.values[i] = value
		break
	}
	return true
}

// wsHead is what ws checks of the request. (Not a field of r: a pointer
// into r kept in r would move every loopRequest to the heap.)
func (r *loopRequest) wsHead() ws.Head {
	return ws.Head{Method: "GET", HTTP11: true, Upgrade: r.lines(fieldUpgrade),
		Connection: r.lines(fieldConnection), Version: r.lines(fieldVersion),
		Key: r.lines(fieldKey), Extensions: r.lines(fieldExtensions)}
}

// lines returns the value of loopFields[i] as a header's list of values:
// none, or the one line read.
func (r *loopRequest) lines(i int) []string {
	if r.seen&(1<<i) == 0 {
		return nil
	}
	return r.values[i : i+1 : i+1]
}

// forwarded returns the lines of the forwarding header h: none, or the
// one read (a repeated one declines the request, for net/http).
func (r *loopRequest) forwarded(h realip.Header) []string {
	if h == realip.Forwarded {
		return r.lines(fieldForwarded)
	}
	return r.lines(fieldXForwardedFor)
}

// appTarget splits a request-target /app/{key}?{query} whose key is of
// letters, digits and - . _ ~ other than "." and "..": a path that needs no
// unescaping or cleaning, which the route for GET /app/{key} matches as it
// is. A '#', which net/url would keep in the path or query, declines.
func appTarget(target string) (key string, q admission.Query, ok bool) {
	path, query, _ := strings.Cut(target, "?")
	key, ok = strings.CutPrefix(path, "/app/")
	if !ok || key == "" || key == "." || key == ".." || strings.IndexByte(target, '#') >= 0 {
		return "", "", false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
			return "", "", false
		}
	}
	return key, admission.Query(query), true
}
