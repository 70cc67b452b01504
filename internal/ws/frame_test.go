package ws

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// lengthBoundaries are the payload lengths where the RFC 6455 5.2 length
// encoding changes (7 bits, 16 bits, 64 bits), and beyond.
var lengthBoundaries = []uint64{0, 1, 125, 126, 127, 65535, 65536, 1 << 32, math.MaxInt64}

func TestHeaderRoundTrip(t *testing.T) {
	for _, length := range lengthBoundaries {
		for _, masked := range []bool{false, true} {
			for _, op := range []Opcode{OpContinuation, OpText, OpBinary, OpClose, OpPing, OpPong} {
				h := header{fin: op != OpContinuation, op: op, masked: masked, length: length}
				if masked {
					h.key = [4]byte{1, 2, 3, 4}
				}
				checkHeaderRoundTrip(t, h)
			}
		}
	}
}

func TestHeaderRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		h := header{
			fin:    r.IntN(2) == 0,
			rsv:    byte(r.IntN(8)) << 4,
			op:     Opcode(r.IntN(16)),
			masked: r.IntN(2) == 0,
			length: r.Uint64N(1 << uint(r.IntN(64))),
		}
		if h.masked {
			h.key = [4]byte{byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32())}
		}
		checkHeaderRoundTrip(t, h)
	}
}

// checkHeaderRoundTrip encodes h, decodes it back, and checks that no
// prefix of the encoding parses and that the encoding is minimal.
func checkHeaderRoundTrip(t *testing.T, h header) {
	t.Helper()
	b := appendHeader([]byte("prefix"), h)[len("prefix"):]
	got, n, ok := parseHeader(b)
	if !ok || n != len(b) || got != h {
		t.Fatalf("round trip of %+v: got %+v, n=%d/%d ok=%v", h, got, n, len(b), ok)
	}
	if want := minimalHeaderSize(h); len(b) != want {
		t.Fatalf("header of %+v is %d bytes, want %d", h, len(b), want)
	}
	for i := range len(b) {
		if _, _, ok := parseHeader(b[:i]); ok {
			t.Fatalf("header %+v parsed from %d of %d bytes", h, i, len(b))
		}
	}
}

func minimalHeaderSize(h header) int {
	n := 2
	switch {
	case h.length > 65535:
		n += 8
	case h.length > 125:
		n += 2
	}
	if h.masked {
		n += 4
	}
	return n
}

func TestParseHeaderNonMinimalLength(t *testing.T) {
	// A 5-byte payload length sent in the 16-bit and 64-bit forms (5.2
	// does not require the minimal form).
	for _, b := range [][]byte{
		{0x81, 0x80 | 126, 0, 5, 1, 2, 3, 4},
		{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 5, 1, 2, 3, 4},
	} {
		h, n, ok := parseHeader(b)
		if !ok || n != len(b) || h.length != 5 || h.key != [4]byte{1, 2, 3, 4} {
			t.Errorf("parseHeader(% x) = %+v, %d, %v", b, h, n, ok)
		}
	}
}

func TestNeed(t *testing.T) {
	frame := text(stars(300)) // 4-byte header + mask key + 300 bytes
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"empty", nil, 0},
		{"one byte", frame[:1], 0},
		{"header incomplete", frame[:5], 0},
		{"header complete", frame[:8], 300},
		{"half payload", frame[:158], 150},
		{"whole", frame, 0},
		{"whole plus more", append(bytes.Clone(frame), 0x81), 0},
		{"huge", []byte{0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, math.MaxInt},
	}
	for _, tt := range tests {
		if got := Need(tt.in); got != tt.want {
			t.Errorf("%s: Need = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestMaskBytes(t *testing.T) {
	key := [4]byte{0xa1, 0xb2, 0xc3, 0xd4}
	for n := range 100 {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(i * 7)
		}
		got := bytes.Clone(p)
		maskBytes(key, got)
		for i := range p {
			if got[i] != p[i]^key[i%4] {
				t.Fatalf("len %d: byte %d = %#x, want %#x", n, i, got[i], p[i]^key[i%4])
			}
		}
		maskBytes(key, got)
		if !bytes.Equal(got, p) {
			t.Fatalf("len %d: masking twice did not restore the payload", n)
		}
	}
}

func TestAppendFrame(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536, 70000} {
		payload := bytes.Repeat([]byte{'x'}, n)
		b := AppendFrame(nil, OpText, payload)
		h, hlen, ok := parseHeader(b)
		if !ok || !h.fin || h.masked || h.op != OpText || h.length != uint64(n) || !bytes.Equal(b[hlen:], payload) {
			t.Fatalf("AppendFrame(%d bytes) decodes as %+v", n, h)
		}
		key := [4]byte{9, 8, 7, 6}
		m := AppendMaskedFrame(nil, OpText, payload, key)
		h, hlen, _ = parseHeader(m)
		maskBytes(key, m[hlen:])
		if !h.masked || h.key != key || !bytes.Equal(m[hlen:], payload) {
			t.Fatalf("AppendMaskedFrame(%d bytes) decodes as %+v", n, h)
		}
	}
}

func TestAppendFrameNoAlloc(t *testing.T) {
	dst := make([]byte, 0, 1024)
	payload := []byte(`{"event":"pusher:pong","data":{}}`)
	if n := testing.AllocsPerRun(100, func() { dst = AppendFrame(dst[:0], OpText, payload) }); n != 0 {
		t.Errorf("AppendFrame allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { dst = AppendClose(dst[:0], 4201, "pong not received") }); n != 0 {
		t.Errorf("AppendClose allocates %v times", n)
	}
}

func TestOpcodeString(t *testing.T) {
	for op, want := range map[Opcode]string{OpText: "text", OpPong: "pong", 3: "opcode(3)"} {
		if got := op.String(); got != want {
			t.Errorf("Opcode(%d).String() = %q, want %q", op, got, want)
		}
	}
}

// TestPrependFrameHeader: a frame made in place is the one AppendFrame
// makes, at every length where the header changes size.
func TestPrependFrameHeader(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 127, 65535, 65536, 70000} {
		payload := bytes.Repeat([]byte{'x'}, n)
		got := PrependFrameHeader(append(make([]byte, FrameRoom), payload...), OpText)
		if want := AppendFrame(nil, OpText, payload); !bytes.Equal(got, want) {
			t.Errorf("length %d: % x..., want % x...", n, got[:min(len(got), 12)], want[:min(len(want), 12)])
		}
	}
}

// TestPayload checks that Payload undoes AppendFrame at every length
// boundary and refuses what is not exactly one unmasked frame.
func TestPayload(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 127, 65535, 65536, 70000} {
		want := bytes.Repeat([]byte{'x'}, n)
		f := AppendFrame(nil, OpText, want)
		got, op, ok := Payload(f)
		if !ok || op != OpText || !bytes.Equal(got, want) {
			t.Fatalf("Payload of a %d-byte frame = %d bytes, %v, %v", n, len(got), op, ok)
		}
		if _, _, ok := Payload(f[:len(f)-1]); n > 0 && ok {
			t.Errorf("Payload accepted a %d-byte frame cut short", n)
		}
		if _, _, ok := Payload(append(f, 0)); ok {
			t.Errorf("Payload accepted a %d-byte frame with a byte after it", n)
		}
	}
	masked := AppendMaskedFrame(nil, OpText, []byte("hi"), [4]byte{1, 2, 3, 4})
	if _, _, ok := Payload(masked); ok {
		t.Error("Payload accepted a masked frame")
	}
}
