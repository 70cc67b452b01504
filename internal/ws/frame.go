package ws

import (
	"encoding/binary"
	"math"
	"strconv"
)

// Opcode is the frame type of RFC 6455 section 5.2. roost receives text,
// continuation and control frames; anything else fails the connection.
type Opcode uint8

// Opcodes defined by RFC 6455 section 5.2 (11.8 registers them).
const (
	OpContinuation Opcode = 0x0 // continues a fragmented message (5.4)
	OpText         Opcode = 0x1 // UTF-8 text data (5.6)
	OpBinary       Opcode = 0x2 // binary data (5.6); roost rejects it with 1003
	OpClose        Opcode = 0x8 // starts or answers the closing handshake (5.5.1)
	OpPing         Opcode = 0x9 // keep-alive probe the peer answers with a pong (5.5.2)
	OpPong         Opcode = 0xA // answer to a ping, or a unidirectional heartbeat (5.5.3)
)

// String names the opcode, so that test failures and logs read well.
func (op Opcode) String() string {
	switch op {
	case OpContinuation:
		return "continuation"
	case OpText:
		return "text"
	case OpBinary:
		return "binary"
	case OpClose:
		return "close"
	case OpPing:
		return "ping"
	case OpPong:
		return "pong"
	}
	return "opcode(" + strconv.Itoa(int(op)) + ")"
}

// isControl reports a control frame: the high bit of the opcode (5.5).
func (op Opcode) isControl() bool { return op&0x8 != 0 }

// isReserved reports the opcodes 3-7 and 11-15 kept for future use (5.2).
func (op Opcode) isReserved() bool {
	return (op > OpBinary && op < OpClose) || op > OpPong
}

// Bits and limits of the base framing protocol, RFC 6455 section 5.2.
const (
	finBit   = 0x80 // first byte: final fragment of a message
	rsvBits  = 0x70 // first byte: RSV1-3, zero unless an extension says otherwise
	opBits   = 0x0F // first byte: opcode
	maskBit  = 0x80 // second byte: payload is masked (every client frame, 5.3)
	len7Bits = 0x7F // second byte: 7-bit payload length or an escape below
	len16    = 126  // escape: a 16-bit length follows
	len64    = 127  // escape: a 64-bit length follows

	maxControlPayload = 125 // control frames carry at most this much (5.5)
	maxHeaderSize     = 14  // 2 + 8 length bytes + 4 mask bytes
)

// header is one decoded frame header (5.2).
type header struct {
	fin    bool
	rsv    uint8 // the RSV1-3 bits in place (mask rsvBits)
	op     Opcode
	masked bool
	length uint64
	key    [4]byte
}

// headerSize reports the header length that the second header byte implies.
func headerSize(b1 byte) int {
	n := 2
	switch b1 & len7Bits {
	case len16:
		n += 2
	case len64:
		n += 8
	}
	if b1&maskBit != 0 {
		n += 4
	}
	return n
}

// parseHeader decodes the header at the start of b; ok is false while b
// holds only part of it. It checks nothing: validation is the caller's.
func parseHeader(b []byte) (h header, n int, ok bool) {
	if len(b) < 2 {
		return h, 0, false
	}
	n = headerSize(b[1])
	if len(b) < n {
		return h, 0, false
	}
	h.fin = b[0]&finBit != 0
	h.rsv = b[0] & rsvBits
	h.op = Opcode(b[0] & opBits)
	h.masked = b[1]&maskBit != 0
	h.length = payloadLength(b)
	if h.masked {
		copy(h.key[:], b[n-4:n])
	}
	return h, n, true
}

// payloadLength reads the 7, 7+16 or 7+64-bit length of a complete header
// (5.2). Non-minimal encodings are accepted, as the RFC does not forbid them.
func payloadLength(b []byte) uint64 {
	switch l := b[1] & len7Bits; l {
	case len16:
		return uint64(binary.BigEndian.Uint16(b[2:4]))
	case len64:
		return binary.BigEndian.Uint64(b[2:10])
	default:
		return uint64(l)
	}
}

// appendHeader encodes h with the minimal length encoding (5.2).
func appendHeader(dst []byte, h header) []byte {
	b0 := byte(h.op)&opBits | h.rsv&rsvBits
	if h.fin {
		b0 |= finBit
	}
	var b1 byte
	if h.masked {
		b1 = maskBit
	}
	switch {
	case h.length <= maxControlPayload:
		dst = append(dst, b0, b1|byte(h.length))
	case h.length <= math.MaxUint16:
		dst = binary.BigEndian.AppendUint16(append(dst, b0, b1|len16), uint16(h.length))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, b0, b1|len64), h.length)
	}
	if h.masked {
		dst = append(dst, h.key[:]...)
	}
	return dst
}

// Need reports how many more bytes the partial frame at the start of in
// needs before Decode can consume it, once its header is complete, so a
// caller can size its pending buffer once; it returns 0 while the header is
// incomplete or when the frame is already whole. Call it on what Decode left
// unconsumed: Decode has then checked the header against maxMessage.
func Need(in []byte) int {
	h, n, ok := parseHeader(in)
	if !ok {
		return 0
	}
	total := uint64(n) + h.length // cannot wrap: length < 2^63 once checked
	if total <= uint64(len(in)) {
		return 0
	}
	return int(min(total-uint64(len(in)), math.MaxInt))
}

// AppendFrameHeader appends the header of an unfragmented, unmasked server
// frame (RFC 6455 5.2) whose payload of length bytes the caller appends
// next. It lets a publisher encode a frame once without copying the payload
// twice (fan-out writes the same frame to every subscriber).
func AppendFrameHeader(dst []byte, op Opcode, length int) []byte {
	return appendHeader(dst, header{fin: true, op: op, length: uint64(length)})
}

// FrameRoom is the room PrependFrameHeader needs before a payload: the
// largest header of an unmasked frame (RFC 6455 5.2: two bytes and eight of
// payload length).
const FrameRoom = 10

// PrependFrameHeader turns buf, FrameRoom bytes of room followed by a
// payload, into the unfragmented server frame AppendFrame would make of
// that payload, in the same memory, and returns it: a message built behind
// the room is sent without a second buffer.
func PrependFrameHeader(buf []byte, op Opcode) []byte {
	var h [FrameRoom]byte
	hdr := AppendFrameHeader(h[:0], op, len(buf)-FrameRoom)
	start := FrameRoom - len(hdr)
	copy(buf[start:], hdr)
	return buf[start:]
}

// AppendFrame appends one unfragmented server frame: FIN set and, as RFC
// 6455 5.1 requires of a server, no mask. Server frames being unmasked is
// what lets one encoded publish be shared by every subscriber.
func AppendFrame(dst []byte, op Opcode, payload []byte) []byte {
	return append(AppendFrameHeader(dst, op, len(payload)), payload...)
}

// AppendMaskedFrame appends one unfragmented client frame masked with key
// (RFC 6455 5.3). Only clients mask: it serves the test client, raw
// conformance tests and benchmarks.
func AppendMaskedFrame(dst []byte, op Opcode, payload []byte, key [4]byte) []byte {
	h := header{fin: true, op: op, masked: true, key: key, length: uint64(len(payload))}
	dst = appendHeader(dst, h)
	start := len(dst)
	dst = append(dst, payload...)
	maskBytes(key, dst[start:])
	return dst
}

// Payload returns the payload and opcode of frame, one complete unmasked
// frame as AppendFrame makes it; ok is false when frame is not exactly one
// such frame. It lets a transport that is not WebSocket (the HTTP fallbacks)
// carry the frames a session sends without a second encoder.
func Payload(frame []byte) (payload []byte, op Opcode, ok bool) {
	h, n, ok := parseHeader(frame)
	if !ok || h.masked || !h.fin || uint64(len(frame)-n) != h.length {
		return nil, 0, false
	}
	return frame[n:], h.op, true
}
