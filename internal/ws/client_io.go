package ws

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"unicode/utf8"
)

// wbufKeep is the largest write buffer a Client keeps between writes.
const wbufKeep = 64 << 10

// WriteText sends p as one masked text frame.
func (c *Client) WriteText(p []byte) error { return c.WriteFrame(OpText, p) }

// WritePing sends a ping carrying p, at most 125 bytes (RFC 6455 5.5.2).
func (c *Client) WritePing(p []byte) error { return c.WriteFrame(OpPing, p) }

// WritePong sends a pong carrying p, e.g. to answer a server's ping (5.5.3).
func (c *Client) WritePong(p []byte) error { return c.WriteFrame(OpPong, p) }

// WriteClose sends a close frame with code and reason (5.5.1); the reason
// is cut to fit. CloseNoStatus sends an empty body.
func (c *Client) WriteClose(code CloseCode, reason string) error {
	var body [maxControlPayload]byte
	return c.WriteFrame(OpClose, appendCloseBody(body[:0], code, reason))
}

// WriteFrame sends one unfragmented frame of any opcode, masked with a fresh
// key as RFC 6455 5.3 requires of clients. It checks nothing, so tests can
// send what a server must refuse.
func (c *Client) WriteFrame(op Opcode, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = AppendMaskedFrame(c.wbuf[:0], op, p, newMaskKey())
	_, err := c.conn.Write(c.wbuf)
	if cap(c.wbuf) > wbufKeep {
		c.wbuf = nil
	}
	return err
}

// WriteRaw writes b to the connection as is, for conformance tests that
// hand-craft frames.
func (c *Client) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.conn.Write(b)
	return err
}

// newMaskKey draws a masking key. RFC 6455 5.3 asks for keys the server
// cannot predict; math/rand/v2's global source is a randomly seeded
// ChaCha8, unpredictable to the server and far cheaper than crypto/rand.
func newMaskKey() [4]byte {
	var k [4]byte
	binary.LittleEndian.PutUint32(k[:], rand.Uint32())
	return k
}

// ReadMessage returns the next message from the server: a whole text or
// binary message (fragments joined), or one control frame (ping, pong, or
// close with its raw body; see ParseClose). It answers nothing by itself.
// The payload is valid until the next ReadMessage. A server frame that
// breaks RFC 6455 is a *CloseError; I/O errors come back as they are.
func (c *Client) ReadMessage() (Opcode, []byte, error) {
	for {
		h, err := c.readHeader()
		if err != nil {
			return 0, nil, err
		}
		p, err := c.readPayload(int(h.length))
		if err != nil {
			return 0, nil, err
		}
		if h.op.isControl() {
			return h.op, p, nil
		}
		if op, msg, done, err := c.assemble(h, p); done || err != nil {
			return op, msg, err
		}
	}
}

// readHeader reads and checks one server frame header.
func (c *Client) readHeader() (header, error) {
	b, err := c.br.Peek(2)
	if err != nil {
		return header{}, err
	}
	b, err = c.br.Peek(headerSize(b[1]))
	if err != nil {
		return header{}, err
	}
	h, n, _ := parseHeader(b)
	c.br.Discard(n)
	return h, c.checkServerHeader(h)
}

// checkServerHeader applies RFC 6455 5.1, 5.2 and 5.5 to a server frame.
func (c *Client) checkServerHeader(h header) error {
	switch {
	case h.masked:
		return protocolError("server frame is masked") // 5.1
	case h.rsv != 0 && !(h.rsv == rsv1 && c.deflate && !h.op.isControl() && h.op != OpContinuation):
		return protocolError("reserved bits set without an extension") // 5.2, RFC 7692 6
	case h.op.isReserved():
		return protocolError("reserved opcode " + h.op.String())
	case h.op.isControl() && (!h.fin || h.length > maxControlPayload):
		return protocolError("fragmented or oversized control frame")
	case !h.op.isControl() && h.length > uint64(c.max-c.pending()):
		return &CloseError{Code: CloseTooBig, Reason: "message too big"}
	}
	return nil
}

// pending reports the bytes of the fragmented message being read.
func (c *Client) pending() int {
	if c.rop == 0 {
		return 0
	}
	return len(c.rmsg)
}

// readPayload returns the next n bytes: from the read buffer when they fit
// (no copy), else in a new slice.
func (c *Client) readPayload(n int) ([]byte, error) {
	if n <= c.br.Size() {
		p, err := c.br.Peek(n)
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		c.br.Discard(n)
		return p, nil
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c.br, p); err != nil {
		return nil, unexpectedEOF(err)
	}
	return p, nil
}

// unexpectedEOF reports a connection that ended inside a frame.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// assemble joins data frames into a message (RFC 6455 5.4); done is false
// while more fragments are due.
func (c *Client) assemble(h header, p []byte) (op Opcode, msg []byte, done bool, err error) {
	switch {
	case h.op == OpContinuation && c.rop == 0:
		return 0, nil, true, protocolError("continuation frame without a message to continue")
	case h.op != OpContinuation && c.rop != 0:
		return 0, nil, true, protocolError("new message inside a fragmented message")
	case h.fin && c.rop == 0 && h.rsv == 0:
		return h.op, p, true, checkText(h.op, p)
	}
	if c.rop == 0 {
		c.startMessage(h.op)
		c.rz = h.rsv == rsv1
	}
	c.rmsg = append(c.rmsg, p...)
	if !h.fin {
		return 0, nil, false, nil
	}
	op, c.rop = c.rop, 0
	if c.rz {
		return c.inflateMessage(op)
	}
	return op, c.rmsg, true, checkText(op, c.rmsg)
}

// inflateMessage replaces the compressed message in rmsg with its inflated
// text, bounded by the client's limit (RFC 7692 7.2.2).
func (c *Client) inflateMessage(op Opcode) (Opcode, []byte, bool, error) {
	msg, err := inflate(c.rmsg, uint64(c.max))
	if err != nil {
		return 0, nil, true, err
	}
	c.rmsg = append(c.rmsg[:0], msg...)
	putFragBuf(msg)
	return op, c.rmsg, true, checkText(op, c.rmsg)
}

// startMessage begins assembling a fragmented message, dropping a buffer
// that a past large message left too big to keep.
func (c *Client) startMessage(op Opcode) {
	c.rop = op
	if cap(c.rmsg) > wbufKeep {
		c.rmsg = nil
	}
	c.rmsg = c.rmsg[:0]
}

// checkText fails a text message that is not UTF-8 (8.1).
func checkText(op Opcode, p []byte) error {
	if op == OpText && !utf8.Valid(p) {
		return invalidPayload("text message is not valid UTF-8")
	}
	return nil
}
