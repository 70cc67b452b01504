package pusher

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendQuoted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain <b>&amp;</b>", `"plain <b>&amp;</b>"`},
		{`say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"\n\r\t\b\f\x00\x1f\x7f", `"\n\r\t\b\f\u0000\u001f` + "\x7f" + `"`},
		{"h\u00e9llo \u4e16\u754c \U0001F600", "\"h\u00e9llo \u4e16\u754c \U0001F600\""},
		{"line\u2028para\u2029end", `"line\u2028para\u2029end"`},
		{"bad \xff\xfe byte", `"bad \ufffd\ufffd byte"`},
		{"cut \xe4\xb8", `"cut \ufffd\ufffd"`},
		{"surrogate \xed\xa0\x80", `"surrogate \ufffd\ufffd\ufffd"`},
		{"real \ufffd stays", "\"real \ufffd stays\""},
	}
	for _, tt := range tests {
		if got := string(appendQuoted(nil, tt.in)); got != tt.want {
			t.Errorf("appendQuoted(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := string(appendQuoted(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("appendQuoted([]byte %q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestAppendQuotedMatchesEncodingJSON compares with encoding/json (HTML
// escaping off) over every rune class that matters.
func TestAppendQuotedMatchesEncodingJSON(t *testing.T) {
	var sb strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		sb.WriteRune(r)
	}
	sb.WriteString("\U0010FFFF\xc0\x80\xf4\x90\x80\x80")
	in := sb.String()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(buf.String(), "\n")
	if got := string(appendQuoted(nil, in)); got != want {
		t.Fatalf("differs from encoding/json:\n got %q\nwant %q", got, want)
	}
}

func TestQuoteTail(t *testing.T) {
	for _, capacity := range []int{0, 8, 1024} { // grows, or writes in place
		dst := append(make([]byte, 0, capacity), "x="...)
		start := len(dst)
		dst = append(dst, `{"a":"b\"c"}`...)
		if got, want := string(quoteTail(dst, start)), `x="{\"a\":\"b\\\"c\"}"`; got != want {
			t.Errorf("cap %d: got %s, want %s", capacity, got, want)
		}
	}
}
