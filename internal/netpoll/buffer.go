package netpoll

import "sync"

// bufPool holds the buffers that a connection borrows for an incomplete
// frame or a write backlog and returns as soon as it is empty again.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// maxPooled is the largest buffer worth keeping in the pool.
const maxPooled = 64 << 10

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > maxPooled {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}
