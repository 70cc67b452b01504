package netpoll

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A connection's write backlog is a queue of fixed-size chunks taken from
// one pool and given back as soon as the socket has taken them or the
// backlog is cut. So what the node-wide budget counts (whole chunks) is the
// memory a backlog holds; appending never copies or doubles what is queued,
// so it leaves no garbage behind; and the chunks one backlog frees are the
// next one's at once, instead of waiting for a collection. An idle
// connection holds none.

// chunkSize is a backlog chunk: one page, so that Go allocates it with no
// waste and a connection with a few bytes queued holds little.
const chunkSize = 4 << 10

type chunk [chunkSize]byte

var chunkPool = sync.Pool{New: func() any { return new(chunk) }}

// maxIovecs bounds the chunks one write hands the kernel: 256 KiB, more
// than a socket's capped send buffer takes at once.
const maxIovecs = 64

// backlog is the bytes a socket has not taken yet.
type backlog struct {
	chunks []*chunk
	head   int // chunks[0][head:] is the first unwritten byte
	n      int // bytes queued
}

// Len returns the bytes queued.
func (q *backlog) Len() int { return q.n }

// held returns the memory the backlog holds: its chunks.
func (q *backlog) held() int { return len(q.chunks) * chunkSize }

// push appends b, taking chunks from the pool as the last one fills.
func (q *backlog) push(b []byte) {
	for len(b) > 0 {
		end := q.head + q.n - (len(q.chunks)-1)*chunkSize // bytes in the last chunk
		if len(q.chunks) == 0 || end == chunkSize {
			q.chunks = append(q.chunks, chunkPool.Get().(*chunk))
			end = 0
		}
		k := copy(q.chunks[len(q.chunks)-1][end:], b)
		q.n += k
		b = b[k:]
	}
}

// pop forgets the first n bytes, giving back the chunks they emptied.
func (q *backlog) pop(n int) {
	q.n -= n
	if q.n == 0 {
		q.truncate(0)
		return
	}
	q.head += n
	k := q.head / chunkSize
	q.head %= chunkSize
	putChunks(q.chunks[:k])
	left := copy(q.chunks, q.chunks[k:])
	clear(q.chunks[left:])
	q.chunks = q.chunks[:left]
}

// truncate keeps the first keep bytes and gives back the chunks past them.
func (q *backlog) truncate(keep int) {
	if keep > q.n {
		return
	}
	need := 0
	if keep > 0 {
		need = (q.head + keep + chunkSize - 1) / chunkSize
	} else {
		q.head = 0
	}
	putChunks(q.chunks[need:])
	clear(q.chunks[need:])
	q.chunks = q.chunks[:need]
	q.n = keep
}

// putChunks gives chunks back to the pool.
func putChunks(chunks []*chunk) {
	for _, ch := range chunks {
		chunkPool.Put(ch)
	}
}

// bytes returns a copy of what is queued.
func (q *backlog) bytes() []byte {
	out := make([]byte, q.n)
	q.at(0, out)
	return out
}

// at copies the queued bytes from offset i on into p and returns how many.
func (q *backlog) at(i int, p []byte) int {
	n := 0
	for i < q.n && n < len(p) {
		pos := q.head + i
		off := pos % chunkSize
		k := copy(p[n:], q.chunks[pos/chunkSize][off:min(chunkSize, off+q.n-i)])
		n += k
		i += k
	}
	return n
}

// write hands the kernel what is queued, up to maxIovecs chunks, with one
// writev(2) on the non-blocking descriptor fd.
func (q *backlog) write(fd int) (int, error) {
	var iov [maxIovecs]unix.Iovec
	off, left, n := q.head, q.n, 0
	for _, ch := range q.chunks {
		if left == 0 || n == len(iov) {
			break
		}
		k := min(chunkSize-off, left)
		iov[n] = unix.Iovec{Base: &ch[off]}
		iov[n].SetLen(k)
		n++
		left -= k
		off = 0
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(n))
	return rawResult(r, e)
}
