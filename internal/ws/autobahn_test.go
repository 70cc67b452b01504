package ws

import (
	"fmt"
	"strings"
	"testing"
)

// These tables replay the Autobahn|Testsuite fuzzing-client cases that
// concern a server's frame decoder (groups 1-7 and 9) as raw client
// frames, each row named after its case number. Where Autobahn expects an
// echo, a row expects the message at the Handler. Deliberate difference:
// roost speaks text only, so every binary case fails with 1003.

// Headers are judged from their first two bytes, so octet-wise rows fail
// on the second octet of the bad frame.

// abCase is one Autobahn case: the bytes the client sends, chunk by chunk,
// and what the server must see.
type abCase struct {
	id     string
	in     [][]byte
	max    int       // maxMessage; 0 means abMax
	want   []string  // recorder events, in order
	code   CloseCode // the code the connection fails with; 0 if it does not
	failAt int       // when set: the chunk whose arrival must fail it (fail fast)
}

// abMax is the message limit of rows that do not test the limit.
const abMax = 1 << 20

func runAutobahn(t *testing.T, cases []abCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			got := feed(t, c.in, cmpOr(c.max, abMax))
			if !sameEvents(got.events, c.want) {
				t.Errorf("events %s, want %s", short(got.events), short(c.want))
			}
			if got.code != c.code {
				t.Errorf("close code %d, want %d", got.code, c.code)
			}
			if c.failAt != 0 && got.failChunk != c.failAt {
				t.Errorf("failed on chunk %d, want %d", got.failChunk, c.failAt)
			}
		})
	}
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func stars(n int) string { return strings.Repeat("*", n) }

func TestAutobahn1Framing(t *testing.T) {
	var cases []abCase
	for i, n := range []int{0, 125, 126, 127, 128, 65535, 65536} {
		cases = append(cases,
			abCase{id: fmt.Sprintf("1.1.%d", i+1), in: perFrame(text(stars(n))), want: []string{"text:" + stars(n)}},
			abCase{id: fmt.Sprintf("1.2.%d", i+1), in: perFrame(binFrame(stars(n))), code: CloseUnsupportedData, failAt: 1})
	}
	cases = append(cases,
		abCase{id: "1.1.8", in: chops(997, text(stars(65536))), want: []string{"text:" + stars(65536)}},
		abCase{id: "1.2.8", in: chops(997, binFrame(stars(65536))), code: CloseUnsupportedData, failAt: 1})
	runAutobahn(t, cases)
}

func TestAutobahn2PingPong(t *testing.T) {
	bin := "\x00\xff\xfe\xfd\xfc\xfb\x00\xff"
	tenPings, tenWant := []([]byte){}, []string{}
	for i := range 10 {
		tenPings = append(tenPings, ping(fmt.Sprintf("payload-%d", i)))
		tenWant = append(tenWant, fmt.Sprintf("ping:payload-%d", i))
	}
	runAutobahn(t, []abCase{
		{id: "2.1", in: perFrame(ping("")), want: []string{"ping:"}},
		{id: "2.2", in: perFrame(ping("Hello, world!")), want: []string{"ping:Hello, world!"}},
		{id: "2.3", in: perFrame(ping(bin)), want: []string{"ping:" + bin}},
		{id: "2.4", in: perFrame(ping(strings.Repeat("\xfe", 125))), want: []string{"ping:" + strings.Repeat("\xfe", 125)}},
		{id: "2.5", in: perFrame(ping(strings.Repeat("\xfe", 126)), text("after")), code: CloseProtocolError, failAt: 1},
		{id: "2.6", in: octets(ping(strings.Repeat("\xfe", 125))), want: []string{"ping:" + strings.Repeat("\xfe", 125)}},
		{id: "2.7", in: perFrame(pong("")), want: []string{"pong:"}},
		{id: "2.8", in: perFrame(pong("unsolicited pong payload")), want: []string{"pong:unsolicited pong payload"}},
		{id: "2.9", in: perFrame(pong("unsolicited pong payload"), ping("ping payload")),
			want: []string{"pong:unsolicited pong payload", "ping:ping payload"}},
		{id: "2.10", in: perFrame(tenPings...), want: tenWant},
		{id: "2.11", in: octets(tenPings...), want: tenWant},
	})
}

func TestAutobahn3ReservedBits(t *testing.T) {
	hello := "text:Hello, world!"
	runAutobahn(t, []abCase{
		{id: "3.1", in: perFrame(rawFrame(true, 1, OpText, "Hello, world!")), code: CloseProtocolError},
		{id: "3.2", in: oneChop(text("Hello, world!"), rawFrame(true, 2, OpText, "Hello, world!"), ping("")),
			want: []string{hello}, code: CloseProtocolError},
		{id: "3.3", in: perFrame(text("Hello, world!"), rawFrame(true, 3, OpText, "Hello, world!"), ping("")),
			want: []string{hello}, code: CloseProtocolError, failAt: 2},
		{id: "3.4", in: octets(text("Hello, world!"), rawFrame(true, 4, OpText, "Hello, world!"), ping("")),
			want: []string{hello}, code: CloseProtocolError, failAt: len(text("Hello, world!")) + 2},
		{id: "3.5", in: perFrame(rawFrame(true, 5, OpBinary, "\x00\xff\xfe\xfd\xfc\xfb\x00\xff")), code: CloseProtocolError},
		{id: "3.6", in: perFrame(rawFrame(true, 6, OpPing, "Hello, world!")), code: CloseProtocolError},
		{id: "3.7", in: perFrame(rawFrame(true, 7, OpClose, "")), code: CloseProtocolError},
	})
}

func TestAutobahn4Opcodes(t *testing.T) {
	hello := []string{"text:Hello, world!"}
	var cases []abCase
	for i, op := range []Opcode{3, 4, 5, 6, 7, 11, 12, 13, 14, 15} {
		group, n := 1+i/5, 1+i%5
		payload := ""
		if n%2 == 0 || n == 5 {
			payload = "reserved opcode payload"
		}
		c := abCase{id: fmt.Sprintf("4.%d.%d", group, n), code: CloseProtocolError}
		if n <= 2 {
			c.in = perFrame(rawFrame(true, 0, op, payload))
		} else {
			c.in = perFrame(text("Hello, world!"), rawFrame(true, 0, op, payload), ping(""))
			c.want, c.failAt = hello, 2
		}
		cases = append(cases, c)
	}
	runAutobahn(t, cases)
}

func TestAutobahn5Fragmentation(t *testing.T) {
	two := []string{"text:fragment1fragment2"}
	withPing := []string{"ping:pongme!", "text:fragment1fragment2"}
	msg := []([]byte){textStart("fragment1"), cont("fragment2", true)}
	pinged := []([]byte){textStart("fragment1"), ping("pongme!"), cont("fragment2", true)}
	stray := []([]byte){cont("non-continuation payload", true), text("Hello, world!")}
	strayOpen := []([]byte){cont("non-continuation payload", false), text("Hello, world!")}
	repeat := func(fin bool) [][]byte {
		seq := []([]byte){cont("fragment1", fin), textStart("fragment2"), cont("fragment3", true)}
		return oneChop(append(seq, seq...)...)
	}
	runAutobahn(t, []abCase{
		{id: "5.1", in: perFrame(rawFrame(false, 0, OpPing, "fragment1"), cont("fragment2", true)), code: CloseProtocolError, failAt: 1},
		{id: "5.2", in: perFrame(rawFrame(false, 0, OpPong, "fragment1"), cont("fragment2", true)), code: CloseProtocolError, failAt: 1},
		{id: "5.3", in: oneChop(msg...), want: two},
		{id: "5.4", in: perFrame(msg...), want: two},
		{id: "5.5", in: octets(msg...), want: two},
		{id: "5.6", in: oneChop(pinged...), want: withPing},
		{id: "5.7", in: perFrame(pinged...), want: withPing},
		{id: "5.8", in: octets(pinged...), want: withPing},
		{id: "5.9", in: oneChop(stray...), code: CloseProtocolError},
		{id: "5.10", in: perFrame(stray...), code: CloseProtocolError, failAt: 1},
		{id: "5.11", in: octets(stray...), code: CloseProtocolError, failAt: 2},
		{id: "5.12", in: oneChop(strayOpen...), code: CloseProtocolError},
		{id: "5.13", in: perFrame(strayOpen...), code: CloseProtocolError, failAt: 1},
		{id: "5.14", in: octets(strayOpen...), code: CloseProtocolError, failAt: 2},
		{id: "5.15", in: oneChop(textStart("fragment1"), cont("fragment2", true), cont("fragment3", false), text("fragment4")),
			want: two, code: CloseProtocolError},
		{id: "5.16", in: repeat(false), code: CloseProtocolError},
		{id: "5.17", in: repeat(true), code: CloseProtocolError},
		{id: "5.18", in: oneChop(textStart("fragment1"), text("fragment2")), code: CloseProtocolError},
		{id: "5.19", in: fiveFragments(false), want: fiveWant},
		{id: "5.20", in: fiveFragments(true), want: fiveWant},
	})
}

var fiveWant = []string{"ping:pongme 1!", "ping:pongme 2!", "text:fragment1fragment2fragment3fragment4fragment5"}

// fiveFragments is cases 5.19/5.20: five fragments with two pings among
// them, sent in two bursts (5.19) or frame by frame (5.20).
func fiveFragments(perFrameSync bool) [][]byte {
	frames := []([]byte){
		textStart("fragment1"), cont("fragment2", false), ping("pongme 1!"),
		cont("fragment3", false), cont("fragment4", false), ping("pongme 2!"), cont("fragment5", true),
	}
	if perFrameSync {
		return perFrame(frames...)
	}
	return append(oneChop(frames[:3]...), oneChop(frames[3:]...)...)
}

func TestAutobahn7Close(t *testing.T) {
	hello := "text:Hello World!"
	big := strings.Repeat("BAsd7&jh23", 256<<10/10+1)[:256<<10]
	invalid := "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80\x65\x64\x69\x74\x65\x64"
	cases := []abCase{
		{id: "7.1.1", in: oneChop(text("Hello World!"), closeFrame(1000, "")), want: []string{hello, "close:1000:"}},
		{id: "7.1.2", in: oneChop(closeFrame(1000, ""), closeFrame(1000, "")), want: []string{"close:1000:"}},
		{id: "7.1.3", in: oneChop(closeFrame(1000, ""), ping("")), want: []string{"close:1000:"}},
		{id: "7.1.4", in: oneChop(closeFrame(1000, ""), text("Hello World!")), want: []string{"close:1000:"}},
		{id: "7.1.5", in: perFrame(textStart("fragment1"), closeFrame(1000, ""), cont("fragment2", true)), want: []string{"close:1000:"}},
		{id: "7.1.6", in: oneChop(text(big), closeFrame(1000, ""), ping("")), want: []string{"text:" + big, "close:1000:"}},
		{id: "7.3.1", in: perFrame(rawFrame(true, 0, OpClose, "")), want: []string{"close:1005:"}},
		{id: "7.3.2", in: perFrame(rawFrame(true, 0, OpClose, "a")), code: CloseProtocolError},
		{id: "7.3.3", in: perFrame(closeFrame(1000, "")), want: []string{"close:1000:"}},
		{id: "7.3.4", in: perFrame(closeFrame(1000, "Hello World!")), want: []string{"close:1000:Hello World!"}},
		{id: "7.3.5", in: perFrame(closeFrame(1000, stars(123))), want: []string{"close:1000:" + stars(123)}},
		{id: "7.3.6", in: perFrame(closeFrame(1000, stars(124))), code: CloseProtocolError},
		{id: "7.5.1", in: perFrame(closeFrame(1000, invalid)), code: CloseInvalidPayload},
		{id: "7.13.1", in: perFrame(closeFrame(5000, "")), code: CloseProtocolError},
		{id: "7.13.2", in: perFrame(closeFrame(65535, "")), code: CloseProtocolError},
	}
	for i, code := range []CloseCode{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999} {
		cases = append(cases, abCase{id: fmt.Sprintf("7.7.%d", i+1), in: perFrame(closeFrame(code, "")),
			want: []string{fmt.Sprintf("close:%d:", code)}})
	}
	for i, code := range []CloseCode{0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999} {
		cases = append(cases, abCase{id: fmt.Sprintf("7.9.%d", i+1), in: perFrame(closeFrame(code, "")), code: CloseProtocolError})
	}
	runAutobahn(t, cases)
}

// TestAutobahn9Limits runs the large-message cases against a limit: at the
// limit they pass, one byte over it they fail with 1009 as soon as the
// header arrives (the 4-16 MiB cases send nothing past it). Rows run as
// they are built, so that their megabytes do not pile up.
func TestAutobahn9Limits(t *testing.T) {
	for i, n := range []int{64 << 10, 256 << 10, 1 << 20} {
		id := fmt.Sprintf("9.1.%d", i+1)
		msg := strings.Repeat("BAsd7&jh23", n/10+1)[:n]
		in := chops(64<<10, text(msg))
		runAutobahn(t, []abCase{
			{id: id, in: in, max: n, want: []string{"text:" + msg}},
			{id: id + "/over", in: in, max: n - 1, code: CloseTooBig, failAt: 1},
		})
	}
	for i, n := range []int{4 << 20, 8 << 20, 16 << 20} {
		head := appendHeader(nil, header{fin: true, op: OpText, masked: true, key: testKey, length: uint64(n)})
		headBin := appendHeader(nil, header{fin: true, op: OpBinary, masked: true, key: testKey, length: uint64(n)})
		runAutobahn(t, []abCase{
			{id: fmt.Sprintf("9.1.%d/over", i+4), in: perFrame(head), max: 1 << 20, code: CloseTooBig, failAt: 1},
			{id: fmt.Sprintf("9.2.%d", i+4), in: perFrame(headBin), code: CloseUnsupportedData, failAt: 1},
		})
	}
	const m4 = 4 << 20
	msg4 := stars(m4)
	for i, size := range []int{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		id := fmt.Sprintf("9.3.%d", i+1)
		in := oneChop(fragments(msg4, size)...)
		cases := []abCase{{id: id + "/over", in: in, max: m4 - 1, code: CloseTooBig}}
		if i%4 == 0 {
			cases = append(cases, abCase{id: id, in: in, max: m4, want: []string{"text:" + msg4}})
		}
		runAutobahn(t, cases)
	}
	msg1 := stars(1 << 20)
	for i, chop := range []int{64, 128, 256, 512, 1024, 2048} {
		runAutobahn(t, []abCase{{id: fmt.Sprintf("9.5.%d", i+1), in: chops(chop, text(msg1)), want: []string{"text:" + msg1}}})
	}
	for i, n := range []int{0, 16, 64, 256, 1024, 4096} {
		frames, want := make([][]byte, 1000), make([]string, 1000)
		for j := range frames {
			frames[j], want[j] = text(stars(n)), "text:"+stars(n)
		}
		runAutobahn(t, []abCase{{id: fmt.Sprintf("9.7.%d", i+1), in: oneChop(frames...), want: want}})
	}
}
