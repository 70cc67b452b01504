package ws_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/roostproject/roost/internal/ws"
)

// printer is a Handler that prints what arrives.
type printer struct{}

func (printer) OnText(p []byte) bool { fmt.Printf("text %s\n", p); return true }
func (printer) OnPing(p []byte) bool { fmt.Printf("ping %q\n", p); return true }
func (printer) OnPong(p []byte) bool { return true }
func (printer) OnClose(code ws.CloseCode, reason []byte) bool {
	fmt.Printf("close %d %q\n", code, reason)
	return false
}

// A transport keeps a State and a fragment buffer per connection, decodes
// whatever it has read, and keeps the unconsumed tail for the next read.
func ExampleDecode() {
	key := [4]byte{1, 2, 3, 4}
	in := ws.AppendMaskedFrame(nil, ws.OpText, []byte(`{"event":"pusher:ping","data":{}}`), key)
	in = ws.AppendMaskedFrame(in, ws.OpPing, []byte("hi"), key)
	in = ws.AppendMaskedFrame(in, ws.OpText, []byte(`{"event":"pusher:subscribe"}`), key)
	read := in[:len(in)-5] // the last frame has not fully arrived

	var (
		st   ws.State
		frag []byte
	)
	n, err := ws.Decode(&st, read, 64<<10, &frag, printer{})
	fmt.Println("consumed", n, "kept", len(read)-n, "needs", ws.Need(read[n:]), err)
	// Output:
	// text {"event":"pusher:ping","data":{}}
	// ping "hi"
	// consumed 47 kept 29 needs 5 <nil>
}

// A failed Decode names the close frame to send before closing.
func ExampleCloseError() {
	var (
		st   ws.State
		frag []byte
	)
	binary := ws.AppendMaskedFrame(nil, ws.OpBinary, []byte{0xff}, [4]byte{})
	_, err := ws.Decode(&st, binary, 64<<10, &frag, printer{})
	var ce *ws.CloseError
	if errors.As(err, &ce) {
		reply := ws.AppendClose(nil, ce.Code, ce.Reason)
		fmt.Printf("%v\nreply % x\n", err, reply[:4])
	}
	// Output:
	// websocket: close 1003: binary messages are not supported
	// reply 88 23 03 eb
}

// Upgrade hands the socket and any early bytes to the transport.
func ExampleUpgrade() {
	http.HandleFunc("/app/{key}", func(w http.ResponseWriter, r *http.Request) {
		conn, buffered, _, err := ws.Upgrade(w, r, nil)
		if err != nil {
			return // the client has been answered already
		}
		defer conn.Close()
		_ = buffered // decode these first, then read conn
	})
}

// The client sends and receives whole messages; it answers nothing itself.
func ExampleDial() {
	c, err := ws.Dial(context.Background(), "ws://127.0.0.1:6001/app/key?protocol=7", &ws.DialOptions{LocalAddr: "127.0.0.2"})
	if err != nil {
		return
	}
	defer c.Close()
	c.WriteText([]byte(`{"event":"pusher:subscribe","data":{"channel":"news"}}`))
	for {
		op, p, err := c.ReadMessage()
		if err != nil {
			return
		}
		if op == ws.OpPing {
			c.WritePong(p)
		}
	}
}
