package ws

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// acceptGUID is the fixed string the server appends to the client's key
// before hashing it (RFC 6455 section 1.3 and 4.2.2).
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// HandshakeError is a rejected opening handshake. Upgrade has already
// answered the client with Status and Reason when it returns one, so the
// caller only counts or logs it (it is the client's fault, not roost's).
type HandshakeError struct {
	Status int    // the HTTP status sent, e.g. 400 or 426
	Reason string // the message sent in the response body
}

// Error describes the rejection.
func (e *HandshakeError) Error() string {
	return fmt.Sprintf("websocket: handshake rejected with %d: %s", e.Status, e.Reason)
}

// Upgrade checks a client's opening handshake (RFC 6455 4.2.1), takes over
// the connection and writes the 101 response with the Sec-WebSocket-Accept
// key (4.2.2). It returns the raw connection and any bytes the server had
// already read past the request (frames the client sent at once): the
// caller must decode those before reading the socket.
//
// A bad handshake is answered with an HTTP error saying what is wrong and
// returned as a *HandshakeError: 405 for a method other than GET, 426 (with
// Upgrade and Sec-WebSocket-Version: 13) for a request that does not ask
// for WebSocket version 13, 400 for a bad Sec-WebSocket-Key. No subprotocol
// is ever accepted, and no extension unless opts allows it.
//
// The returned State is the connection's decoder state to start from: it
// says whether permessage-deflate was negotiated.
func Upgrade(w http.ResponseWriter, r *http.Request, opts *UpgradeOptions) (net.Conn, []byte, State, error) {
	key, herr := CheckHandshake(r)
	if herr != nil {
		herr.Write(w)
		return nil, nil, State{}, herr
	}
	extensions, st := Negotiate(r.Header, opts)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "websocket: cannot take over this connection", http.StatusInternalServerError)
		return nil, nil, State{}, fmt.Errorf("websocket: hijack: %w", err)
	}
	buffered := takeBuffered(rw.Reader)
	if err := writeSwitching(conn, key, extensions); err != nil {
		conn.Close()
		return nil, nil, State{}, fmt.Errorf("websocket: write 101 response: %w", err)
	}
	return conn, buffered, st, nil
}

// UpgradeOptions is what a server allows in a handshake; nil allows
// nothing beyond RFC 6455.
type UpgradeOptions struct {
	// Deflate accepts a client's permessage-deflate offer (RFC 7692), if
	// it makes an acceptable one (AcceptDeflate), with DeflateResponse.
	Deflate bool
}

// Negotiate applies opts to a handshake's headers: it returns the
// Sec-WebSocket-Extensions value to answer with ("" for none) and the
// decoder State the connection starts from. Upgrade calls it; a server
// that reads the request itself calls Head.Negotiate, the same rule.
func Negotiate(h http.Header, opts *UpgradeOptions) (extensions string, st State) {
	head := Head{Extensions: h.Values("Sec-WebSocket-Extensions")}
	return head.Negotiate(opts)
}

// Negotiate is the package's Negotiate on the Sec-WebSocket-Extensions
// lines of h.
func (h *Head) Negotiate(opts *UpgradeOptions) (extensions string, st State) {
	if opts == nil || !opts.Deflate {
		return "", State{}
	}
	extensions, ok := NegotiateDeflate(h.Extensions)
	if !ok {
		return "", State{}
	}
	return extensions, DeflateState()
}

// Head is what the rules of an opening handshake read of a request: its
// method, whether it is HTTP/1.1 or later, and the values of the header
// lines involved, each in the order they came. HeadOf takes it from an
// *http.Request; a server that parses request heads itself fills it in, so
// that both are held to one set of rules (Check and Negotiate).
type Head struct {
	Method     string
	HTTP11     bool     // HTTP/1.1 or a later version
	Upgrade    []string // the values of the Upgrade lines
	Connection []string // of the Connection lines
	Version    []string // of the Sec-WebSocket-Version lines
	Key        []string // of the Sec-WebSocket-Key lines
	Extensions []string // of the Sec-WebSocket-Extensions lines
}

// HeadOf reads the Head of r, without copying its header values.
func HeadOf(r *http.Request) Head {
	return Head{
		Method: r.Method, HTTP11: r.ProtoAtLeast(1, 1),
		Upgrade: r.Header.Values("Upgrade"), Connection: r.Header.Values("Connection"),
		Version: r.Header.Values("Sec-WebSocket-Version"), Key: r.Header.Values("Sec-WebSocket-Key"),
		Extensions: r.Header.Values("Sec-WebSocket-Extensions"),
	}
}

// CheckHandshake applies RFC 6455 4.2.1 to r (Head.Check) and returns the
// client's key, or the HTTP error to answer with. Upgrade calls it; a
// server that reads the request itself calls it to apply the same rules.
func CheckHandshake(r *http.Request) (string, *HandshakeError) {
	h := HeadOf(r)
	return h.Check()
}

// Check applies RFC 6455 4.2.1 in order and returns the client's key, or
// the HTTP error to answer with.
func (h *Head) Check() (string, *HandshakeError) {
	switch {
	case h.Method != http.MethodGet:
		return "", &HandshakeError{http.StatusMethodNotAllowed, "websocket: the handshake must be a GET request"}
	case !h.HTTP11:
		return "", &HandshakeError{http.StatusBadRequest, "websocket: the handshake needs HTTP/1.1"}
	case !hasToken(h.Upgrade, "websocket"):
		return "", &HandshakeError{http.StatusUpgradeRequired, "websocket: missing \"Upgrade: websocket\" header"}
	case !hasToken(h.Connection, "upgrade"):
		return "", &HandshakeError{http.StatusUpgradeRequired, "websocket: \"Connection\" header does not contain \"Upgrade\""}
	case len(h.Version) == 0 || h.Version[0] != "13": // the first line, as http.Header.Get reads it
		return "", &HandshakeError{http.StatusUpgradeRequired, "websocket: unsupported Sec-WebSocket-Version, want 13"}
	}
	if len(h.Key) != 1 || !validKey(h.Key[0]) {
		return "", &HandshakeError{http.StatusBadRequest, "websocket: Sec-WebSocket-Key must be one base64-encoded 16-byte value"}
	}
	return h.Key[0], nil
}

// Write sends the rejection, for a server that checks a handshake before
// calling Upgrade (which sends it itself). A 426 names what to upgrade to
// (RFC 9110 15.5.22) and the version roost speaks (RFC 6455 4.2.2 and 4.4).
func (e *HandshakeError) Write(w http.ResponseWriter) {
	switch e.Status {
	case http.StatusUpgradeRequired:
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Sec-WebSocket-Version", "13")
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", http.MethodGet)
	}
	http.Error(w, e.Reason, e.Status)
}

// hasToken reports whether one of the values of a comma-separated header
// holds token, ignoring case (RFC 9110 5.6.1: list syntax; header lines
// may repeat).
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// validKey reports a Sec-WebSocket-Key that base64-decodes to 16 bytes
// (RFC 6455 4.1, item 7 of the client's requirements).
func validKey(key string) bool {
	if len(key) != base64.StdEncoding.EncodedLen(16) {
		return false
	}
	var raw [18]byte // DecodedLen(24)
	n, err := base64.StdEncoding.Decode(raw[:], []byte(key))
	return err == nil && n == 16
}

// takeBuffered copies the bytes the HTTP server read past the request.
func takeBuffered(br *bufio.Reader) []byte {
	n := br.Buffered()
	if n == 0 {
		return nil
	}
	p, _ := br.Peek(n)
	return bytes.Clone(p)
}

// writeSwitching writes the 101 response of RFC 6455 4.2.2, item 5.
// A non-empty extensions is the Sec-WebSocket-Extensions it accepts.
func writeSwitching(conn net.Conn, key string, extensions string) error {
	_, err := conn.Write(AppendSwitching(make([]byte, 0, 256), key, extensions))
	return err
}

// AppendSwitching appends the 101 response of RFC 6455 4.2.2, item 5, for
// a client's Sec-WebSocket-Key, so that a server can send it in one write
// with the first frames. A non-empty extensions is the
// Sec-WebSocket-Extensions value it accepts (from Negotiate).
func AppendSwitching(dst []byte, key string, extensions string) []byte {
	dst = append(dst, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"+
		"Connection: Upgrade\r\nSec-WebSocket-Accept: "...)
	dst = appendAcceptKey(dst, key)
	if extensions != "" {
		dst = append(dst, "\r\nSec-WebSocket-Extensions: "...)
		dst = append(dst, extensions...)
	}
	return append(dst, "\r\n\r\n"...)
}

// AcceptKey computes the Sec-WebSocket-Accept value for a client's
// Sec-WebSocket-Key: base64 of the SHA-1 of the key and the RFC's GUID
// (RFC 6455 4.2.2). The client checks it to know the server speaks
// WebSocket (4.1).
func AcceptKey(clientKey string) string {
	var b [28]byte
	return string(appendAcceptKey(b[:0], clientKey))
}

// appendAcceptKey appends AcceptKey(key), hashing on the stack for keys of
// the standard 24 characters.
func appendAcceptKey(dst []byte, key string) []byte {
	var in [64]byte
	var sum [sha1.Size]byte
	if len(key) <= len(in)-len(acceptGUID) {
		n := copy(in[:], key)
		n += copy(in[n:], acceptGUID)
		sum = sha1.Sum(in[:n])
	} else {
		sum = sha1.Sum([]byte(key + acceptGUID))
	}
	return base64.StdEncoding.AppendEncode(dst, sum[:])
}
