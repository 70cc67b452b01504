package realip

import (
	"net/netip"
	"testing"
)

func mustTrust(t testing.TB, cidrs ...string) Trust {
	t.Helper()
	tr, err := ParseTrust(cidrs)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestClientIsTheRightmostUntrustedAddress(t *testing.T) {
	tr := mustTrust(t, "10.0.0.0/8", "2001:db8:ffff::/48", "192.0.2.1")
	for _, tc := range []struct {
		peer  string
		h     Header
		lines []string
		want  string
	}{
		{"203.0.113.9", XForwardedFor, []string{"198.51.100.1"}, "203.0.113.9"}, // untrusted peer: header ignored
		{"10.0.0.2", XForwardedFor, nil, "10.0.0.2"},
		{"10.0.0.2", XForwardedFor, []string{"198.51.100.1"}, "198.51.100.1"},
		{"10.0.0.2", XForwardedFor, []string{"6.6.6.6, 198.51.100.1, 10.1.1.1"}, "198.51.100.1"}, // a forged left part
		{"10.0.0.2", XForwardedFor, []string{"6.6.6.6", "198.51.100.1:4711"}, "198.51.100.1"},
		{"10.0.0.2", XForwardedFor, []string{"[2001:db8::7]:80, 192.0.2.1"}, "2001:db8::7"},
		{"10.0.0.2", XForwardedFor, []string{"10.9.9.9, 10.8.8.8"}, "10.9.9.9"},
		{"10.0.0.2", XForwardedFor, []string{"198.51.100.1, garbage"}, "10.0.0.2"},
		{"::ffff:10.0.0.2", XForwardedFor, []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"10.0.0.2", Forwarded, []string{`for=198.51.100.1;proto=https`}, "198.51.100.1"},
		{"10.0.0.2", Forwarded, []string{`for=6.6.6.6, For="[2001:db8:cafe::17]:4711";by=10.0.0.2`}, "2001:db8:cafe::17"},
		{"10.0.0.2", Forwarded, []string{`for=unknown`}, "10.0.0.2"},
		{"10.0.0.2", Forwarded, []string{`for=_hidden, for=10.3.3.3`}, "10.3.3.3"},
	} {
		got := tr.Client(netip.MustParseAddr(tc.peer), tc.h, tc.lines)
		if got != netip.MustParseAddr(tc.want) {
			t.Errorf("Client(%s, %s %q) = %s, want %s", tc.peer, tc.h.Name(), tc.lines, got, tc.want)
		}
	}
}

func TestParseTrustNamesTheBadEntry(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "example.com", "fe80::1%eth0", ""} {
		if _, err := ParseTrust([]string{"10.0.0.0/8", bad}); err == nil {
			t.Errorf("ParseTrust accepted %q", bad)
		}
	}
	if tr := mustTrust(t, "10.1.2.3/8"); !tr.Contains(netip.MustParseAddr("10.200.0.1")) {
		t.Error("a CIDR with host bits set does not cover its network")
	}
}

func TestKeyCountsIPv6ByPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bits int
		want string
	}{
		{"2001:db8:1:2:aaaa::1", 64, "2001:db8:1:2::"},
		{"2001:db8:1:2:aaaa::1", 48, "2001:db8:1::"},
		{"2001:db8:1:2:aaaa::1", 128, "2001:db8:1:2:aaaa::1"},
		{"2001:db8:1:2:aaaa::1", 0, "2001:db8:1:2:aaaa::1"},
		{"198.51.100.7", 64, "198.51.100.7"},
		{"::ffff:198.51.100.7", 64, "198.51.100.7"},
	} {
		if got := Key(netip.MustParseAddr(tc.in), tc.bits); got != netip.MustParseAddr(tc.want) {
			t.Errorf("Key(%s, %d) = %s, want %s", tc.in, tc.bits, got, tc.want)
		}
	}
}

func FuzzClient(f *testing.F) {
	for _, s := range []string{"198.51.100.1, 10.1.1.1", `for=192.0.2.60;proto=http;by=203.0.113.43`,
		`for="[2001:db8:cafe::17]:4711"`, "[2001:db8::7]:80, 192.0.2.1", "for=unknown, for=_x"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	tr := mustTrust(f, "10.0.0.0/8", "192.0.2.0/24", "::/0")
	peer := netip.MustParseAddr("10.0.0.1")
	f.Fuzz(func(t *testing.T, line string, fwd bool) {
		h := XForwardedFor
		if fwd {
			h = Forwarded
		}
		if got := tr.Client(peer, h, []string{line}); !got.IsValid() || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("Client(%q) = %v", line, got)
		}
	})
}
