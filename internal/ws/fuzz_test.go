package ws

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"testing"
)

// decodeSeeds are real client byte streams: what pusher-js sends, split and
// interleaved the ways RFC 6455 allows, plus close frames and mistakes.
func decodeSeeds() [][]byte {
	seeds := append(splitCorpus(),
		text(`{"event":"pusher:subscribe","data":{"auth":"278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4","channel":"private-foobar"}}`),
		text(`{"event":"pusher:ping","data":{}}`),
		text(`{"event":"client-typing","channel":"presence-room","data":{"user":"u1"}}`),
		bytes.Join(fragmentsOf(`{"event":"pusher:`, `unsubscribe","data":{"channel":`, `"my-channel"}}`), nil),
		closeFrame(1000, ""), closeFrame(1001, "going away"), rawFrame(true, 0, OpClose, ""),
		rawFrame(true, 0, OpClose, "a"), ping("ping"), pong(""),
		appendHeader(nil, header{fin: true, op: OpText, masked: true, length: 1 << 40}),
	)
	return seeds
}

// FuzzDecode checks that Decode never panics, never consumes more than it
// is given (feed checks every call), and gives the same result whether the
// input arrives at once, in two or three pieces, or byte by byte.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add(s, uint16(len(s)/2), uint16(len(s)/3))
	}
	f.Fuzz(func(t *testing.T, in []byte, a, b uint16) {
		want := feed(t, [][]byte{in}, 4096)
		i, j := int(a)%(len(in)+1), int(b)%(len(in)+1)
		i, j = min(i, j), max(i, j)
		for _, chunks := range [][][]byte{{in[:i], in[i:]}, {in[:i], in[i:j], in[j:]}, chops(1, in)} {
			if got := feed(t, chunks, 4096); !sameOutcome(got, want) {
				t.Fatalf("split %d/%d: %+v, all at once: %+v", i, j, got, want)
			}
		}
	})
}

// pipeConn is a net.Conn that reads from a fixed stream and discards writes.
type pipeConn struct {
	net.Conn
	r io.Reader
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *pipeConn) Close() error                { return nil }

// newStreamClient makes a Client that reads server frames from stream.
func newStreamClient(stream []byte, maxMessage int) *Client {
	conn := &pipeConn{r: bytes.NewReader(stream)}
	return &Client{conn: conn, br: bufio.NewReaderSize(conn, clientReadBuffer), max: maxMessage}
}

// FuzzReadMessage checks that the client's reader never panics and never
// returns a message over its limit, whatever the server sends.
func FuzzReadMessage(f *testing.F) {
	f.Add(AppendFrame(nil, OpText, []byte(`{"event":"pusher:connection_established","data":"{\"socket_id\":\"123.456\",\"activity_timeout\":120}"}`)))
	f.Add(AppendFrame(AppendFrame(nil, OpPing, nil), OpText, []byte(`{"event":"pusher:pong","data":{}}`)))
	f.Add(AppendClose(nil, 4001, "App key not in this cluster"))
	f.Add(serverFragments("a", "b", "c"))
	f.Add(text("masked is wrong from a server"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		c := newStreamClient(stream, 1024)
		for {
			op, p, err := c.ReadMessage()
			if err != nil {
				return
			}
			if len(p) > 1024 || (op.isControl() && len(p) > maxControlPayload) {
				t.Fatalf("%v message of %d bytes", op, len(p))
			}
		}
	})
}

// serverFragments encodes parts as one fragmented server text message.
func serverFragments(parts ...string) []byte {
	var b []byte
	for i, p := range parts {
		op := OpContinuation
		if i == 0 {
			op = OpText
		}
		b = appendHeader(b, header{fin: i == len(parts)-1, op: op, length: uint64(len(p))})
		b = append(b, p...)
	}
	return b
}
