package proxyproto

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"testing"
)

// Real headers: version 1 as HAProxy's send-proxy writes them, version 2
// as send-proxy-v2 and an AWS Network Load Balancer (with its VPC
// endpoint TLV, type 0xEA) write them.
var (
	v1TCP4    = "PROXY TCP4 203.0.113.7 10.0.0.5 56324 443\r\n"
	v1TCP6    = "PROXY TCP6 2001:db8::1 2001:db8::2 4711 6001\r\n"
	v1Unknown = "PROXY UNKNOWN\r\n"
	v2TCP4    = mustHex("0d0a0d0a000d0a515549540a" + "2111000c" + "cb007107" + "0a000005" + "dc04" + "01bb")
	v2TCP6    = mustHex("0d0a0d0a000d0a515549540a" + "21210024" +
		"20010db8000000000000000000000001" + "20010db8000000000000000000000002" + "1267" + "1771")
	v2Local = mustHex("0d0a0d0a000d0a515549540a" + "20000000")
	v2AWS   = mustHex("0d0a0d0a000d0a515549540a" + "21110023" + "cb007107" + "0a000005" + "dc04" + "01bb" +
		"ea0014" + "01" + hex.EncodeToString([]byte("vpce-08d2bf15fac5001c")[:19]))
)

func mustHex(s string) string {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestParseRealHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the source, "" for none
	}{
		{"v1 tcp4", v1TCP4, "203.0.113.7:56324"},
		{"v1 tcp6", v1TCP6, "[2001:db8::1]:4711"},
		{"v1 unknown", v1Unknown, ""},
		{"v2 tcp4", v2TCP4, "203.0.113.7:56324"},
		{"v2 tcp6", v2TCP6, "[2001:db8::1]:4711"},
		{"v2 local", v2Local, ""},
		{"v2 aws tlv", v2AWS, "203.0.113.7:56324"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in + "GET / HTTP/1.1\r\n"
			h, n, err := Parse([]byte(in))
			if err != nil || n != len(tc.in) {
				t.Fatalf("Parse = %v, %d, %v; want length %d", h, n, err, len(tc.in))
			}
			if got := addrString(h.Source); got != tc.want {
				t.Errorf("source %q, want %q", got, tc.want)
			}
			for i := range len(tc.in) {
				if _, _, err := Parse([]byte(tc.in[:i])); err != ErrIncomplete {
					t.Fatalf("Parse of %d of %d bytes: %v, want ErrIncomplete", i, len(tc.in), err)
				}
			}
		})
	}
}

func addrString(a netip.AddrPort) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func TestParseRefusesMalformed(t *testing.T) {
	for _, in := range []string{
		"GET / HTTP/1.1\r\n",
		"PROXY TCP4 203.0.113.7 10.0.0.5 56324\r\n",
		"PROXY TCP4 2001:db8::1 10.0.0.5 1 2\r\n",
		"PROXY TCP6 203.0.113.7 10.0.0.5 1 2\r\n",
		"PROXY TCP4 203.0.113.7 10.0.0.5 056324 443\r\n",
		"PROXY TCP4 203.0.113.7 10.0.0.5 65536 443\r\n",
		"PROXY TCP4  203.0.113.7 10.0.0.5 1 443\r\n",
		"PROXY UDP4 203.0.113.7 10.0.0.5 1 443\r\n",
		"PROXY TCP4 203.0.113.7 10.0.0.5 1 +443\r\n",
		"PROXY " + string(make([]byte, 120)),
		mustHex("0d0a0d0a000d0a515549540a" + "1111000c" + "cb0071070a000005dc0401bb"), // version 1 in v2 form
		mustHex("0d0a0d0a000d0a515549540a" + "2211000c" + "cb0071070a000005dc0401bb"), // command 2
		mustHex("0d0a0d0a000d0a515549540a" + "21110008" + "cb0071070a000005"),         // addresses cut short
		mustHex("0d0a0d0a000d0a515549540a" + "2111ffff"),                              // longer than MaxHeader
	} {
		if _, _, err := Parse([]byte(in)); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{v1TCP4, v1TCP6, v1Unknown, v2TCP4, v2TCP6, v2Local, v2AWS, "GET /app/key HTTP/1.1\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := Parse(b)
		switch {
		case err == nil:
			if n <= 0 || n > len(b) || n > MaxHeader {
				t.Fatalf("length %d of %d bytes", n, len(b))
			}
			if h2, n2, err2 := Parse(b[:n]); err2 != nil || n2 != n || h2 != h {
				t.Fatalf("the header alone reads differently: %v %d %v", h2, n2, err2)
			}
		case err == ErrIncomplete:
			if len(b) >= MaxHeader {
				t.Fatalf("incomplete at %d bytes", len(b))
			}
		case err != ErrInvalid:
			t.Fatalf("error %v", err)
		}
	})
}
