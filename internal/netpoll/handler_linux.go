package netpoll

import (
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// OnText implements ws.Handler: a complete client message.
func (c *conn) OnText(payload []byte) bool {
	c.l.local.messagesIn++
	c.call().HandleText(payload)
	more := c.more(len(payload))
	return more && c.flags&(fClosing|fDead) == 0
}

// OnPing implements ws.Handler: answer with a pong carrying the same data
// (RFC 6455 5.5.3).
func (c *conn) OnPing(payload []byte) bool {
	c.Send(ws.AppendFrame(nil, ws.OpPong, payload))
	return c.more(len(payload))
}

// OnPong implements ws.Handler; receiving it already counted as activity.
func (c *conn) OnPong(payload []byte) bool { return c.more(len(payload)) }

// OnClose implements ws.Handler. A close we started is now complete; a close
// the client started is echoed (RFC 6455 5.5.1) and the socket released.
func (c *conn) OnClose(code ws.CloseCode, _ []byte) bool {
	c.why.Set(connstats.Client)
	if c.flags&fClosing == 0 {
		c.Close(transport.EchoCode(code), "")
	}
	c.l.kill(c, connstats.Client)
	return false
}
