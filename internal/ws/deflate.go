package ws

import (
	"compress/flate"
	"errors"
	"io"
	"sync"
)

// rsv1 is the "Per-Message Compressed" bit of permessage-deflate (RFC 7692
// 6): set on the first frame of a compressed message.
const rsv1 = 0x40

// deflateTail is what RFC 7692 7.2.2 has the receiver append to a
// compressed message (the sync flush marker the sender removed), followed
// by an empty final block so that the inflater ends with io.EOF.
const deflateTail = "\x00\x00\xff\xff\x01\x00\x00\xff\xff"

// deflateLevel trades compression for CPU on the server's frames; a frame
// is compressed once per publish, whatever the number of subscribers.
const deflateLevel = flate.BestSpeed

// DeflateFrame returns frame, an unfragmented unmasked server frame as
// AppendFrame makes, with its payload compressed (RFC 7692 7.2.1, with no
// context taken over from earlier messages) and RSV1 set; nil when frame is
// not such a frame or compressing would not make it smaller. The result
// suits every connection that negotiated DeflateResponse, so a publish is
// compressed once for all of them.
func DeflateFrame(frame []byte) []byte {
	h, n, ok := parseHeader(frame)
	if !ok || h.masked || !h.fin || h.rsv != 0 || uint64(len(frame)-n) != h.length {
		return nil
	}
	d := getDeflater()
	defer putDeflater(d)
	z := d.compress(frame[n:])
	if len(z) >= len(frame)-n {
		return nil
	}
	out := appendHeader(make([]byte, 0, maxHeaderSize+len(z)), header{fin: true, rsv: rsv1, op: h.op, length: uint64(len(z))})
	return append(out, z...)
}

// deflater is a pooled compressor with its output buffer.
type deflater struct {
	w   *flate.Writer
	out []byte
}

func (d *deflater) Write(p []byte) (int, error) {
	d.out = append(d.out, p...)
	return len(p), nil
}

// compress returns p deflated and sync-flushed, without the flush's
// trailing 00 00 ff ff (RFC 7692 7.2.1); valid until the next call.
func (d *deflater) compress(p []byte) []byte {
	d.out = d.out[:0]
	d.w.Reset(d)
	d.w.Write(p)
	d.w.Flush()
	return d.out[:len(d.out)-4]
}

var deflaters sync.Pool

func getDeflater() *deflater {
	if d, _ := deflaters.Get().(*deflater); d != nil {
		return d
	}
	d := &deflater{}
	d.w, _ = flate.NewWriter(d, deflateLevel)
	return d
}

func putDeflater(d *deflater) {
	if cap(d.out) > fragBufPooled {
		d.out = nil
	}
	deflaters.Put(d)
}

// inflate decompresses the payload of a compressed client message (RFC
// 7692 7.2.2) into a buffer from the fragment pool, which the caller puts
// back. Output past max bytes fails with 1009 as soon as it is produced, so
// a small message that inflates to a huge one costs at most max bytes (and
// the time to produce them); data that is not valid DEFLATE fails with
// 1007.
func inflate(p []byte, max uint64) ([]byte, error) {
	f := getInflater(p)
	defer putInflater(f)
	out := getFragBuf()
	for {
		if len(out) == cap(out) {
			out = growBounded(out, max)
		}
		n, err := f.r.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		switch {
		case uint64(len(out)) > max:
			putFragBuf(out)
			return nil, &CloseError{Code: CloseTooBig, Reason: "message too big"}
		case errors.Is(err, io.EOF):
			return out, nil
		case err != nil:
			putFragBuf(out)
			return nil, invalidPayload("compressed message is not valid DEFLATE data")
		}
	}
}

// growBounded doubles buf's capacity, up to one byte past max (enough to
// see that output exceeds it).
func growBounded(buf []byte, max uint64) []byte {
	size := uint64(2 * cap(buf))
	if limit := max + 1; size > limit && limit > uint64(cap(buf)) {
		size = limit
	}
	bigger := make([]byte, len(buf), size)
	copy(bigger, buf)
	putFragBuf(buf)
	return bigger
}

// inflater is a pooled decompressor: flate's reader keeps a 32 KB window,
// so no connection owns one; each compressed message borrows one for as
// long as it takes to inflate.
type inflater struct {
	src tailReader
	r   io.ReadCloser
}

var inflaters sync.Pool

func getInflater(p []byte) *inflater {
	f, _ := inflaters.Get().(*inflater)
	if f == nil {
		f = &inflater{}
		f.src.reset(p)
		f.r = flate.NewReader(&f.src)
		return f
	}
	f.src.reset(p)
	f.r.(flate.Resetter).Reset(&f.src, nil)
	return f
}

func putInflater(f *inflater) {
	f.src.reset(nil)
	inflaters.Put(f)
}

// tailReader reads a message's compressed bytes, then deflateTail. It is
// an io.ByteReader, so flate reads it without a buffer of its own.
type tailReader struct {
	p    []byte
	tail int // bytes of deflateTail already read
}

func (t *tailReader) reset(p []byte) { t.p, t.tail = p, 0 }

func (t *tailReader) Read(b []byte) (int, error) {
	if len(t.p) > 0 {
		n := copy(b, t.p)
		t.p = t.p[n:]
		return n, nil
	}
	if t.tail == len(deflateTail) {
		return 0, io.EOF
	}
	n := copy(b, deflateTail[t.tail:])
	t.tail += n
	return n, nil
}

func (t *tailReader) ReadByte() (byte, error) {
	if len(t.p) > 0 {
		c := t.p[0]
		t.p = t.p[1:]
		return c, nil
	}
	if t.tail == len(deflateTail) {
		return 0, io.EOF
	}
	t.tail++
	return deflateTail[t.tail-1], nil
}
