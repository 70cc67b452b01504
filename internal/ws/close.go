package ws

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// CloseCode is the status code of a close frame, RFC 6455 section 7.4.
// Pusher's own codes (4000-4999) use the same type: they are the private-use
// range of 7.4.2.
type CloseCode uint16

// Close codes defined by RFC 6455 section 7.4.1.
const (
	CloseNormal          CloseCode = 1000 // the purpose of the connection is fulfilled
	CloseGoingAway       CloseCode = 1001 // server shutting down or browser leaving the page
	CloseProtocolError   CloseCode = 1002 // the peer broke the framing rules
	CloseUnsupportedData CloseCode = 1003 // a data type roost does not accept (binary)
	CloseNoStatus        CloseCode = 1005 // the close frame had no body; never sent on the wire
	CloseInvalidPayload  CloseCode = 1007 // text that is not UTF-8 (8.1)
	ClosePolicyViolation CloseCode = 1008 // a generic policy refusal
	CloseTooBig          CloseCode = 1009 // a message over the configured limit
	CloseInternalError   CloseCode = 1011 // the server hit an unexpected condition
)

// Room left for a close reason in a control frame: 125 bytes minus the code.
const maxCloseReason = maxControlPayload - 2

// CloseError is a reason to fail a connection: the close frame to send
// (RFC 6455 7.1.7) before closing the socket. Decode returns it so that the
// transport can answer with the right code without interpreting the error.
type CloseError struct {
	Code   CloseCode
	Reason string // at most 123 bytes of UTF-8, so it fits a close frame
}

// Error describes the failure with its close code.
func (e *CloseError) Error() string {
	return "websocket: close " + strconv.Itoa(int(e.Code)) + ": " + e.Reason
}

func protocolError(reason string) error {
	return &CloseError{Code: CloseProtocolError, Reason: reason}
}

func invalidPayload(reason string) error {
	return &CloseError{Code: CloseInvalidPayload, Reason: reason}
}

// validOnWire reports whether a peer may send code in a close frame
// (RFC 6455 7.4.1-7.4.2 and the IANA registry of 11.7): 1000-1003,
// 1007-1011, the later registered 1012-1014, and 3000-4999. 1004 is
// reserved; 1005, 1006 and 1015 are for local use only.
func (c CloseCode) validOnWire() bool {
	switch {
	case c >= 1000 && c <= 1003:
		return true
	case c >= 1007 && c <= 1014:
		return true
	}
	return c >= 3000 && c <= 4999
}

// ParseClose decodes the body of a close frame (RFC 6455 5.5.1): an empty
// body is CloseNoStatus; otherwise a two-byte valid code and a UTF-8 reason.
// The reason aliases p. A bad body is a *CloseError (1002, or 1007 for a
// reason that is not UTF-8).
func ParseClose(p []byte) (CloseCode, []byte, error) {
	switch {
	case len(p) == 0:
		return CloseNoStatus, nil, nil
	case len(p) == 1:
		return 0, nil, protocolError("close frame body of one byte")
	}
	code := CloseCode(binary.BigEndian.Uint16(p))
	if !code.validOnWire() {
		return 0, nil, protocolError("invalid close code " + strconv.Itoa(int(code)))
	}
	if !utf8.Valid(p[2:]) {
		return 0, nil, invalidPayload("close reason is not valid UTF-8")
	}
	return code, p[2:], nil
}

// appendCloseBody appends a close frame body (5.5.1): nothing for
// CloseNoStatus, which must not appear on the wire, else the code and the
// reason cut to fit.
func appendCloseBody(dst []byte, code CloseCode, reason string) []byte {
	if code == CloseNoStatus {
		return dst
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(code))
	return append(dst, fitReason(reason)...)
}

// fitReason cuts reason to the 123 bytes a close frame leaves for it, at a
// rune boundary so that the peer's UTF-8 check still passes.
func fitReason(reason string) string {
	if len(reason) <= maxCloseReason {
		return reason
	}
	i := maxCloseReason
	for i > 0 && !utf8.RuneStart(reason[i]) {
		i--
	}
	return reason[:i]
}

// AppendClose appends a server close frame (RFC 6455 5.5.1) with code and
// reason, the reason cut at a rune boundary to fit the 125-byte control
// frame limit. CloseNoStatus gives a close frame with an empty body.
func AppendClose(dst []byte, code CloseCode, reason string) []byte {
	var body [maxControlPayload]byte
	return AppendFrame(dst, OpClose, appendCloseBody(body[:0], code, reason))
}
