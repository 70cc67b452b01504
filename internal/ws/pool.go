package ws

import "sync"

// Sizes of the buffers that hold a fragmented text message in progress.
const (
	fragBufSize   = 4 << 10  // a fresh buffer's capacity
	fragBufPooled = 64 << 10 // larger buffers are left to the GC, not pooled
)

// fragBox carries a buffer through a sync.Pool: putting a pointer costs no
// allocation where putting a slice header would.
type fragBox struct{ buf []byte }

// fragPool lends buffers to fragmented messages, which are rare (browsers
// and pusher-js never fragment), so that no connection keeps one while idle
// (docs/design.md, "An idle connection owns no goroutine, no timer and no
// buffer"). emptyBoxes recycles the boxes themselves.
// These pools are the package's only shared state; sync.Pool is safe for
// concurrent use by every loop.
var fragPool, emptyBoxes sync.Pool

// getFragBuf returns an empty buffer from the pool or a new one.
func getFragBuf() []byte {
	box, _ := fragPool.Get().(*fragBox)
	if box == nil {
		return make([]byte, 0, fragBufSize)
	}
	buf := box.buf
	box.buf = nil
	emptyBoxes.Put(box)
	return buf[:0]
}

// putFragBuf gives buf back to the pool unless it grew too big to keep.
func putFragBuf(buf []byte) {
	if cap(buf) > fragBufPooled {
		return
	}
	box, _ := emptyBoxes.Get().(*fragBox)
	if box == nil {
		box = new(fragBox)
	}
	box.buf = buf[:0]
	fragPool.Put(box)
}
