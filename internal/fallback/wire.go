package fallback

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// The lines of pusher-js's HTTP framing (src/core/http/http_socket.ts,
// onChunk), each ended by "\n".
var (
	openLine      = []byte("o\n")
	heartbeatLine = []byte("h\n")
)

// appendMessages appends one `a[...]` line carrying the messages of
// msgs, each a Pusher message (JSON text), as a JSON string.
func appendMessages(dst []byte, msgs []item) []byte {
	dst = append(dst, 'a', '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, m.msg)
	}
	return append(dst, ']', '\n')
}

// closeLine returns the `c[code,"reason"]` line that ends a session;
// pusher-js hands code and reason on as a WebSocket close's.
func closeLine(code int, reason string) []byte {
	b := append([]byte("c["), strconv.Itoa(code)...)
	b = append(b, ',')
	b = appendQuoted(b, []byte(reason))
	return append(b, ']', '\n')
}

const hex = "0123456789abcdef"

// appendQuoted appends s as a JSON string (RFC 8259 section 7): quotes,
// backslashes and control characters escaped, so that no line feed ever
// appears inside a line, and invalid UTF-8 replaced by U+FFFD as
// encoding/json does. U+2028 and U+2029 are escaped too: they are line
// ends to older JavaScript parsers.
func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = appendASCII(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, `\u202`...)
			dst = append(dst, hex[r&0xf])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// appendASCII appends one ASCII byte of a JSON string, escaped if it must be.
func appendASCII(dst []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(dst, '\\', c)
	case c == '\n':
		return append(dst, '\\', 'n')
	case c == '\r':
		return append(dst, '\\', 'r')
	case c == '\t':
		return append(dst, '\\', 't')
	case c < 0x20 || c == 0x7f:
		return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
	}
	return append(dst, c)
}

// errSendBody is the answer to an xhr_send body that is not a JSON array of
// strings.
var errSendBody = errors.New(`roost: xhr_send body must be a JSON array of strings, such as ["{\"event\":\"pusher:ping\",\"data\":{}}"]`)

// parseSend decodes an xhr_send body, `["<message>",...]`: each element is
// one client message. "[]" is a heartbeat (no messages). A message larger
// than maxMessage bytes is refused whole, as a WebSocket's would be.
func parseSend(body []byte, maxMessage int) ([][]byte, error) {
	var msgs []*string
	if err := json.Unmarshal(body, &msgs); err != nil || msgs == nil {
		return nil, errSendBody
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		if m == nil {
			return nil, errSendBody
		}
		if len(*m) > maxMessage {
			return nil, errTooLarge
		}
		out[i] = []byte(*m)
	}
	return out, nil
}

// errTooLarge is the answer to an xhr_send message over max_message_size.
var errTooLarge = errors.New("roost: message larger than limits.max_message_size")
