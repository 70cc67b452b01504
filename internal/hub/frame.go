package hub

import "sync"

// Frame is one published event as every subscriber receives it: the
// WebSocket frame, encoded once, and the same frame compressed for the
// subscribers that negotiated permessage-deflate. The compressed form is
// made at most once, by the first such subscriber's shard, and shared by
// all of them: roost's server_no_context_takeover makes it independent of
// each connection's history. A publish no such subscriber receives is
// never compressed. A Frame is immutable once made.
type Frame struct {
	plain    []byte
	compress func([]byte) []byte // nil: never compressed

	once     sync.Once
	deflated []byte // nil when compressing did not make it smaller
}

// NewFrame returns a frame whose compressed form, when asked for, is
// compress(plain); compress may be nil, and may return nil to keep plain.
func NewFrame(plain []byte, compress func([]byte) []byte) *Frame {
	return &Frame{plain: plain, compress: compress}
}

// Plain returns the uncompressed frame.
func (f *Frame) Plain() []byte { return f.plain }

// For returns the frame to write to a connection: compressed when deflate
// says the connection negotiated permessage-deflate and compressing made it
// smaller, else plain. It is safe for concurrent use.
func (f *Frame) For(deflate bool) []byte {
	if !deflate || f.compress == nil {
		return f.plain
	}
	f.once.Do(func() { f.deflated = f.compress(f.plain) })
	if f.deflated == nil {
		return f.plain
	}
	return f.deflated
}
