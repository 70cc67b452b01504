package ws

import (
	"bytes"
	"compress/flate"
	"io"
	"strings"
	"testing"
)

// clientDeflate compresses msg as a permessage-deflate client does with no
// context takeover: raw DEFLATE, sync-flushed, the final 00 00 ff ff
// removed (RFC 7692 7.2.1).
func clientDeflate(t testing.TB, msg string) string {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	w.Write([]byte(msg))
	w.Flush()
	z := b.Bytes()
	if !bytes.HasSuffix(z, []byte{0, 0, 0xff, 0xff}) {
		t.Fatalf("flush did not end with 00 00 ff ff: % x", z[len(z)-4:])
	}
	return string(z[:len(z)-4])
}

// zText is a compressed, unfragmented text message from a client.
func zText(t testing.TB, msg string) []byte { return rawFrame(true, 4, OpText, clientDeflate(t, msg)) }

const event = `{"event":"client-typing","channel":"private-room","data":{"user":"u1","text":"hello hello hello hello"}}`

func TestDecodeCompressed(t *testing.T) {
	z := clientDeflate(t, event)
	half := len(z) / 2
	cases := []struct {
		name   string
		st     State
		frames [][]byte
		want   []string
		code   CloseCode
	}{
		{"unfragmented", DeflateState(), [][]byte{zText(t, event)}, []string{"text:" + event}, 0},
		{"fragmented", DeflateState(), [][]byte{rawFrame(false, 4, OpText, z[:half]), ping("p"), cont(z[half:], true)}, []string{"ping:p", "text:" + event}, 0},
		{"then plain", DeflateState(), [][]byte{zText(t, "a"), text("b")}, []string{"text:a", "text:b"}, 0},
		{"not negotiated", State{}, [][]byte{zText(t, event)}, nil, CloseProtocolError},
		{"RSV1 on a continuation", DeflateState(), [][]byte{textStart("a"), rawFrame(true, 4, OpContinuation, "b")}, nil, CloseProtocolError},
		{"RSV1 on a ping", DeflateState(), [][]byte{rawFrame(true, 4, OpPing, "")}, nil, CloseProtocolError},
		{"RSV2", DeflateState(), [][]byte{rawFrame(true, 2, OpText, "a")}, nil, CloseProtocolError},
		{"not DEFLATE", DeflateState(), [][]byte{rawFrame(true, 4, OpText, "\xff\xff\xff\xff")}, nil, CloseInvalidPayload},
		{"not UTF-8", DeflateState(), [][]byte{zText(t, "\xff")}, nil, CloseInvalidPayload},
		{"inflates past the limit", DeflateState(), [][]byte{zText(t, strings.Repeat("a", 4097))}, nil, CloseTooBig},
	}
	for _, c := range cases {
		for _, how := range []func(...[]byte) [][]byte{oneChop, perFrame, octets} {
			got := feedFrom(t, c.st, how(c.frames...), 4096)
			if got.code != c.code || !sameEvents(got.events, c.want) {
				t.Errorf("%s: got %s, close %d; want %s, close %d", c.name, short(got.events), got.code, short(c.want), c.code)
			}
		}
	}
}

// TestDecompressionBombRefused sends 1 MB of zeros compressed into about a
// kilobyte: it fails with 1009 without inflating past the limit.
func TestDecompressionBombRefused(t *testing.T) {
	bomb := zText(t, strings.Repeat("\x00", 1<<20))
	if len(bomb) > 2<<10 {
		t.Fatalf("the bomb is %d bytes compressed", len(bomb))
	}
	got := feedFrom(t, DeflateState(), [][]byte{bomb}, 64<<10)
	if got.code != CloseTooBig || len(got.events) != 0 {
		t.Fatalf("a 1 MB bomb under a 64 KB limit: close %d, events %s", got.code, short(got.events))
	}
}

func TestInflateStopsAtLimit(t *testing.T) {
	z := clientDeflate(t, strings.Repeat("a", 1<<20))
	if _, err := inflate([]byte(z), 10000); closeCode(t, err) != CloseTooBig {
		t.Fatal("no 1009")
	}
	out, err := inflate([]byte(z), 1<<20)
	if err != nil || len(out) != 1<<20 {
		t.Fatalf("exactly at the limit: %d bytes, %v", len(out), err)
	}
}

func TestDeflateFrameRoundTrip(t *testing.T) {
	plain := AppendFrame(nil, OpText, []byte(strings.Repeat(event, 10)))
	z := DeflateFrame(plain)
	if z == nil || len(z) >= len(plain) {
		t.Fatalf("compressed %d bytes into %d", len(plain), len(z))
	}
	h, n, ok := parseHeader(z)
	if !ok || !h.fin || h.rsv != rsv1 || h.op != OpText || h.masked || uint64(len(z)-n) != h.length {
		t.Fatalf("bad header %+v", h)
	}
	r := flate.NewReader(io.MultiReader(bytes.NewReader(z[n:]), strings.NewReader(deflateTail)))
	got, err := io.ReadAll(r)
	if err != nil || string(got) != strings.Repeat(event, 10) {
		t.Fatalf("inflated %q, %v", got, err)
	}
}

func TestDeflateFrameKeepsSmallOnes(t *testing.T) {
	if z := DeflateFrame(AppendFrame(nil, OpText, []byte("{}"))); z != nil {
		t.Fatalf("a 2-byte payload was 'compressed' into % x", z)
	}
	if z := DeflateFrame([]byte{0x81}); z != nil {
		t.Fatal("a partial frame was compressed")
	}
}

func TestAcceptDeflate(t *testing.T) {
	cases := []struct {
		header []string
		want   bool
	}{
		{[]string{"permessage-deflate"}, true},                                    // Firefox
		{[]string{"permessage-deflate; client_max_window_bits"}, true},            // Chromium, Node's ws
		{[]string{"Permessage-Deflate; Client_No_Context_Takeover"}, true},        // names are case-insensitive
		{[]string{"permessage-deflate; server_max_window_bits=15"}, true},         // roost's own window
		{[]string{`permessage-deflate; client_max_window_bits="10"`}, true},       // a quoted token
		{[]string{"x-webkit-deflate-frame, permessage-deflate"}, true},            // a later offer
		{[]string{"foo", "permessage-deflate; server_no_context_takeover"}, true}, // a later header line
		{[]string{"permessage-deflate; server_max_window_bits=10"}, false},        // a window flate cannot keep to
		{[]string{"permessage-deflate; server_max_window_bits"}, false},           // needs a value
		{[]string{"permessage-deflate; client_max_window_bits=16"}, false},
		{[]string{"permessage-deflate; client_max_window_bits=08"}, false},
		{[]string{"permessage-deflate; server_no_context_takeover=1"}, false},
		{[]string{"permessage-deflate; client_no_context_takeover; client_no_context_takeover"}, false},
		{[]string{"permessage-deflate; mystery"}, false},
		{[]string{"permessage-deflate;"}, false},
		{[]string{`permessage-deflate; client_max_window_bits="1`}, false},
		{[]string{"deflate-frame"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := AcceptDeflate(c.header); got != c.want {
			t.Errorf("AcceptDeflate(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

func BenchmarkDeflateFrame1KB(b *testing.B) {
	plain := AppendFrame(nil, OpText, []byte(typicalEvent))
	b.ReportAllocs()
	var z []byte
	for b.Loop() {
		z = DeflateFrame(plain)
	}
	b.ReportMetric(float64(len(plain)), "plain-B")
	b.ReportMetric(float64(len(z)), "wire-B")
}

func BenchmarkDecodeCompressed(b *testing.B) {
	msg := strings.Repeat(event, 10)
	frame := zText(b, msg)
	buf := make([]byte, len(frame))
	var rec nopHandler
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, frame)
		st := DeflateState()
		var frag []byte
		if _, err := Decode(&st, buf, 1<<20, &frag, rec); err != nil {
			b.Fatal(err)
		}
	}
}

// typicalEvent is a Pusher event of about 1 KB as a server sends it: an
// order update whose data, a JSON string, carries escaped JSON.
const typicalEvent = `{"event":"App\\Events\\OrderStatusUpdated","channel":"private-orders.48213",` +
	`"data":"{\"order\":{\"id\":48213,\"number\":\"ORD-2026-048213\",\"status\":\"shipped\",` +
	`\"previous_status\":\"packed\",\"updated_at\":\"2026-11-30T14:21:07.000000Z\",` +
	`\"customer\":{\"id\":9921,\"name\":\"Maria Gonzalez\",\"email\":\"maria.gonzalez@example.com\"},` +
	`\"shipping\":{\"carrier\":\"DHL Express\",\"tracking_number\":\"JD014600006281234567\",` +
	`\"tracking_url\":\"https://www.dhl.com/en/express/tracking.html?AWB=JD014600006281234567\",` +
	`\"estimated_delivery\":\"2026-12-03\",\"address\":{\"line1\":\"Calle de Alcala 42\",\"line2\":\"3B\",` +
	`\"city\":\"Madrid\",\"postal_code\":\"28014\",\"country\":\"ES\"}},` +
	`\"items\":[{\"sku\":\"TSHIRT-BLK-M\",\"name\":\"Classic T-Shirt, black, M\",\"quantity\":2,\"unit_price\":1999},` +
	`{\"sku\":\"HOODIE-GRY-L\",\"name\":\"Zip Hoodie, grey, L\",\"quantity\":1,\"unit_price\":4999},` +
	`{\"sku\":\"SOCKS-WHT-3P\",\"name\":\"Sport Socks, white, 3 pairs\",\"quantity\":1,\"unit_price\":1299}],` +
	`\"totals\":{\"subtotal\":10296,\"shipping\":495,\"tax\":2266,\"total\":13057,\"currency\":\"EUR\"}},` +
	`\"message\":\"Your order ORD-2026-048213 has shipped with DHL Express.\"}"}`

func TestTypicalEventIsAboutOneKB(t *testing.T) {
	if n := len(typicalEvent); n < 900 || n > 1200 {
		t.Fatalf("the typical event is %d bytes", n)
	}
}
