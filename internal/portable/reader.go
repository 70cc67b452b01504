package portable

import (
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// reader is a conn seen as the frame decoder's handler; its methods run on
// the reader goroutine.
type reader conn

var _ ws.Handler = (*reader)(nil)

// OnText hands a copy of the message to the dispatcher.
func (r *reader) OnText(payload []byte) bool {
	c := (*conn)(r)
	c.t.stats.MessagesIn.Add(1)
	msg := append([]byte(nil), payload...)
	c.t.do(func() { c.call().HandleText(msg) })
	return true
}

// OnPing answers at once (RFC 6455 5.5.3).
func (r *reader) OnPing(payload []byte) bool {
	(*conn)(r).Send(ws.AppendFrame(nil, ws.OpPong, payload))
	return true
}

// OnPong needs nothing: any data already counted as activity.
func (r *reader) OnPong([]byte) bool { return true }

// OnClose echoes a client's close (or completes ours) and ends the reader.
func (r *reader) OnClose(code ws.CloseCode, _ []byte) bool {
	c := (*conn)(r)
	c.setReason(connstats.Client)
	c.Close(transport.EchoCode(code), "")
	c.mu.Lock()
	c.failed = true
	c.mu.Unlock()
	return false
}
