package ws

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCloseCodeValidOnWire(t *testing.T) {
	valid := func(c CloseCode) bool {
		return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1014) || (c >= 3000 && c <= 4999)
	}
	for c := range CloseCode(65535) {
		if got := c.validOnWire(); got != valid(c) {
			t.Errorf("CloseCode(%d).validOnWire() = %v", c, got)
		}
	}
}

func TestParseClose(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		code   CloseCode
		reason string
		err    CloseCode
	}{
		{"empty", "", CloseNoStatus, "", 0},
		{"one byte", "\x03", 0, "", CloseProtocolError},
		{"normal", "\x03\xe8", CloseNormal, "", 0},
		{"reason", "\x03\xe9bye", CloseGoingAway, "bye", 0},
		{"pusher 4201", "\x10\x69pong", 4201, "pong", 0},
		{"1012 registered", "\x03\xf4", 1012, "", 0},
		{"1004 reserved", "\x03\xec", 0, "", CloseProtocolError},
		{"1005 local only", "\x03\xed", 0, "", CloseProtocolError},
		{"1015 local only", "\x03\xf7", 0, "", CloseProtocolError},
		{"2999 unassigned", "\x0b\xb7", 0, "", CloseProtocolError},
		{"5000 out of range", "\x13\x88", 0, "", CloseProtocolError},
		{"reason not utf-8", "\x03\xe8\xff", 0, "", CloseInvalidPayload},
	}
	for _, tt := range tests {
		code, reason, err := ParseClose([]byte(tt.body))
		if tt.err != 0 {
			if err == nil || closeCode(t, err) != tt.err {
				t.Errorf("%s: error %v, want close code %d", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || code != tt.code || string(reason) != tt.reason {
			t.Errorf("%s: got %d %q %v, want %d %q", tt.name, code, reason, err, tt.code, tt.reason)
		}
	}
}

func TestAppendClose(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes of 2-byte runes
	tests := []struct {
		name   string
		code   CloseCode
		reason string
		body   string
	}{
		{"no status", CloseNoStatus, "ignored", ""},
		{"code only", CloseNormal, "", "\x03\xe8"},
		{"reason", 4001, "app does not exist", "\x0f\xa1app does not exist"},
		{"ascii cut", CloseNormal, stars(200), "\x03\xe8" + stars(123)},
		{"cut at rune", CloseNormal, long, "\x03\xe8" + long[:122]},
	}
	for _, tt := range tests {
		b := AppendClose(nil, tt.code, tt.reason)
		h, n, _ := parseHeader(b)
		if h.op != OpClose || !h.fin || h.masked || string(b[n:]) != tt.body {
			t.Errorf("%s: frame %+v body %q, want %q", tt.name, h, b[n:], tt.body)
		}
		if tt.code != CloseNoStatus && !utf8.Valid(b[n+2:]) {
			t.Errorf("%s: reason is not UTF-8", tt.name)
		}
	}
}

func TestCloseErrorMessage(t *testing.T) {
	err := error(&CloseError{Code: CloseTooBig, Reason: "message too big"})
	if got, want := err.Error(), "websocket: close 1009: message too big"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
