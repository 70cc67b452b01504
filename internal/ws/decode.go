package ws

import (
	"math"
	"unicode/utf8"
)

// State is the decoder state a connection carries between Decode calls:
// the fragmented message in progress, if any, its UTF-8 validation state,
// and the extensions the handshake negotiated. It lives in every
// connection, so it is three bytes and holds no pointer for the GC to scan.
// The zero value is ready: no message, no extension.
type State struct {
	op   Opcode // OpText while a fragmented message is in progress, else 0
	utf8 uint8  // UTF-8 DFA state at the end of the last fragment
	ext  uint8  // extDeflate, and extCompressed for the message in progress
}

// The bits of State.ext.
const (
	extDeflate    uint8 = 1 << iota // permessage-deflate was negotiated (RFC 7692)
	extCompressed                   // the message in progress is compressed
)

// DeflateState is the State of a connection that negotiated
// permessage-deflate with DeflateResponse: its client may send compressed
// messages.
func DeflateState() State { return State{ext: extDeflate} }

// Deflate reports whether the connection negotiated permessage-deflate, so
// that the server may send it compressed frames (DeflateFrame).
func (s State) Deflate() bool { return s.ext&extDeflate != 0 }

// Handler receives decoded messages. Each method returns false to stop
// decoding (the connection is closing); Decode then returns at once with
// the bytes consumed so far, including the frame just handled.
type Handler interface {
	// OnText receives a complete text message; payload is valid only during
	// the call (it aliases the caller's read buffer or a pooled buffer).
	OnText(payload []byte) bool
	// OnPing receives a ping's payload (at most 125 bytes); the handler
	// answers with a pong carrying the same payload (RFC 6455 5.5.2).
	OnPing(payload []byte) bool
	// OnPong receives a pong's payload, solicited or not (5.5.3).
	OnPong(payload []byte) bool
	// OnClose receives a valid close frame: CloseNoStatus for an empty body
	// (5.5.1). The handler answers with a close frame and closes.
	OnClose(code CloseCode, reason []byte) bool
}

// Decode decodes every complete client frame in in (RFC 6455 section 5),
// unmasking it in place, and hands messages to h. It returns how many bytes
// it consumed; in[n:] is an incomplete frame the caller keeps and prepends
// to its next input (when Decode succeeds, it has not written to in[n:]).
//
// frag points at the connection's buffer for a fragmented text message in
// progress, nil when there is none; it must not itself be nil. Decode takes
// a buffer from a pool when a fragmented message starts and puts it back
// (setting *frag to nil) when the message completes or fails. An
// unfragmented text frame goes to OnText straight from in (zero copy).
//
// maxMessage bounds a message, the sum of its fragments, in bytes; zero or
// less means no bound. A header that declares more fails with 1009 at once,
// before its payload has arrived or anything is allocated.
//
// A non-nil error is a *CloseError: send its close frame, then close the
// connection (7.1.7). State and *frag are already reset then.
func Decode(st *State, in []byte, maxMessage int, frag *[]byte, h Handler) (n int, err error) {
	d := decoder{st: st, frag: frag, h: h, max: messageLimit(maxMessage)}
	for {
		size, more, err := d.next(in[n:])
		if err != nil {
			Discard(st, frag)
			return n, err
		}
		n += size
		if size == 0 || !more {
			return n, nil
		}
	}
}

// Discard ends the fragmented message in progress, if any: it returns the
// fragment buffer to the pool and resets st. Call it when a connection is
// closed while Decode may have left a message half-received (after a
// handler returned false, a timeout, or the peer vanished).
func Discard(st *State, frag *[]byte) {
	if *frag != nil {
		putFragBuf(*frag)
		*frag = nil
	}
	*st = State{ext: st.ext & extDeflate}
}

// messageLimit turns Decode's maxMessage into a bound on payload bytes.
func messageLimit(maxMessage int) uint64 {
	if maxMessage <= 0 {
		return math.MaxUint64
	}
	return uint64(maxMessage)
}

// decoder holds one Decode call's arguments; it lives on the stack.
type decoder struct {
	st   *State
	frag *[]byte
	h    Handler
	max  uint64
}

// next decodes the frame at the start of b. size is 0 when b holds only
// part of a frame; more is false when the handler asked to stop.
func (d *decoder) next(b []byte) (size int, more bool, err error) {
	h, hlen, err := d.header(b)
	if err != nil || hlen == 0 {
		return 0, false, err
	}
	if uint64(len(b)-hlen) < h.length {
		return 0, false, nil
	}
	end := hlen + int(h.length)
	payload := b[hlen:end]
	maskBytes(h.key, payload)
	if more, err = d.dispatch(h, payload); err != nil {
		return 0, false, err
	}
	return end, more, nil
}

// header checks the frame header at the start of b as soon as its bytes
// are there, so that a bad frame fails before its payload arrives. hlen is
// 0 while the header is incomplete.
func (d *decoder) header(b []byte) (h header, hlen int, err error) {
	if len(b) < 2 {
		return h, 0, nil
	}
	if err := d.checkStart(b[0], b[1]); err != nil {
		return h, 0, err
	}
	h, hlen, ok := parseHeader(b)
	if !ok {
		return h, 0, nil
	}
	return h, hlen, d.checkLength(h)
}

// checkStart applies the rules that the first two header bytes decide.
func (d *decoder) checkStart(b0, b1 byte) error {
	op := Opcode(b0 & opBits)
	switch {
	case b0&rsvBits != 0 && !d.compressedStart(b0, op):
		return protocolError("reserved bits set without an extension") // 5.2, RFC 7692 6
	case op.isReserved():
		return protocolError("reserved opcode " + op.String()) // 5.2
	case b1&maskBit == 0:
		return protocolError("client frame not masked") // 5.1
	case op.isControl():
		return checkControl(b0, b1)
	}
	return d.checkData(op)
}

// compressedStart reports a frame whose only reserved bit is RSV1 and
// which may carry it: the first frame of a data message on a connection
// that negotiated permessage-deflate (RFC 7692 6).
func (d *decoder) compressedStart(b0 byte, op Opcode) bool {
	return b0&rsvBits == rsv1 && d.st.ext&extDeflate != 0 && op != OpContinuation && !op.isControl()
}

// checkControl enforces RFC 6455 5.5: control frames are never fragmented
// and carry at most 125 bytes.
func checkControl(b0, b1 byte) error {
	if b0&finBit == 0 {
		return protocolError("fragmented control frame")
	}
	if b1&len7Bits > maxControlPayload {
		return protocolError("control frame over 125 bytes")
	}
	return nil
}

// checkData enforces the fragmentation rules of RFC 6455 5.4 and roost's
// text-only rule (1003, 7.4.1).
func (d *decoder) checkData(op Opcode) error {
	inProgress := d.st.op != 0
	switch {
	case op == OpContinuation && !inProgress:
		return protocolError("continuation frame without a message to continue")
	case op != OpContinuation && inProgress:
		return protocolError("new message inside a fragmented message")
	case op == OpBinary:
		return &CloseError{Code: CloseUnsupportedData, Reason: "binary messages are not supported"}
	}
	return nil
}

// checkLength rejects a 64-bit length with the top bit set (5.2) and a data
// frame that would take its message past the limit (1009, 7.4.1).
func (d *decoder) checkLength(h header) error {
	if h.length > math.MaxInt64 {
		return protocolError("payload length with the most significant bit set")
	}
	if h.op.isControl() {
		return nil
	}
	if used := uint64(len(*d.frag)); used > d.max || h.length > d.max-used {
		return &CloseError{Code: CloseTooBig, Reason: "message too big"}
	}
	return nil
}

// dispatch hands a complete, unmasked frame to the handler.
func (d *decoder) dispatch(h header, p []byte) (bool, error) {
	switch h.op {
	case OpPing:
		return d.h.OnPing(p), nil
	case OpPong:
		return d.h.OnPong(p), nil
	case OpClose:
		return d.close(p)
	}
	if h.rsv&rsv1 != 0 {
		d.st.ext |= extCompressed
	}
	if h.fin && d.st.op == 0 && d.st.ext&extCompressed == 0 {
		return d.whole(p)
	}
	if d.st.ext&extCompressed != 0 {
		return d.compressed(h.fin, p)
	}
	return d.fragment(h.fin, p)
}

// close validates a close frame body (5.5.1, 7.4) before handing it over.
func (d *decoder) close(p []byte) (bool, error) {
	code, reason, err := ParseClose(p)
	if err != nil {
		return false, err
	}
	return d.h.OnClose(code, reason), nil
}

// whole handles an unfragmented text message, zero copy (5.6, 8.1).
func (d *decoder) whole(p []byte) (bool, error) {
	if !utf8.Valid(p) {
		return false, invalidPayload("text message is not valid UTF-8")
	}
	return d.h.OnText(p), nil
}

// fragment adds one fragment to the message in progress (5.4), failing
// fast when the text so far can no longer be UTF-8, and delivers the
// message with its final fragment.
func (d *decoder) fragment(fin bool, p []byte) (bool, error) {
	s := utf8Continue(d.st.utf8, p)
	if s == utf8Reject || (fin && s != utf8Accept) {
		return false, invalidPayload("text message is not valid UTF-8")
	}
	if d.st.op == 0 {
		*d.frag = getFragBuf()
		d.st.op = OpText
	}
	*d.frag = append(*d.frag, p...)
	d.st.utf8 = s
	if !fin {
		return true, nil
	}
	more := d.h.OnText(*d.frag)
	Discard(d.st, d.frag)
	return more, nil
}

// compressed handles one frame of a compressed message (RFC 7692 6): an
// unfragmented one is inflated straight from in; fragments are gathered in
// the message buffer and inflated with the final one.
func (d *decoder) compressed(fin bool, p []byte) (bool, error) {
	if fin && d.st.op == 0 {
		d.st.ext &^= extCompressed
		return d.inflated(p)
	}
	if d.st.op == 0 {
		*d.frag = getFragBuf()
		d.st.op = OpText
	}
	*d.frag = append(*d.frag, p...)
	if !fin {
		return true, nil
	}
	more, err := d.inflated(*d.frag)
	Discard(d.st, d.frag)
	return more, err
}

// inflated inflates a whole compressed message, checks that it is UTF-8
// and delivers it.
func (d *decoder) inflated(z []byte) (bool, error) {
	msg, err := inflate(z, d.max)
	if err != nil {
		return false, err
	}
	defer putFragBuf(msg)
	if !utf8.Valid(msg) {
		return false, invalidPayload("text message is not valid UTF-8")
	}
	return d.h.OnText(msg), nil
}
