package netpoll

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A minimal io_uring of sends: one per loop, used to hand the kernel many
// socket writes with one system call (uring_linux.go). Only what that needs
// is here: setup, one opcode, submit-and-wait, and the completions. The
// layouts and numbers are the kernel's (include/uapi/linux/io_uring.h).

// ringEntries is the submission queue's size, so a loop hands over at most
// this many sends per system call. The ring's memory is the kernel's, about
// 100 bytes per entry, per loop and never per connection.
const ringEntries = 1024

const (
	ringSetupClamp       = 1 << 4     // IORING_SETUP_CLAMP
	ringSetupSubmitAll   = 1 << 7     // IORING_SETUP_SUBMIT_ALL
	ringSetupCoopTaskrun = 1 << 8     // IORING_SETUP_COOP_TASKRUN
	ringFeatSingleMmap   = 1 << 0     // IORING_FEAT_SINGLE_MMAP
	ringEnterGetEvents   = 1 << 0     // IORING_ENTER_GETEVENTS
	ringOpSend           = 26         // IORING_OP_SEND
	ringOffSQRing        = 0          // IORING_OFF_SQ_RING
	ringOffCQRing        = 0x8000000  // IORING_OFF_CQ_RING
	ringOffSQEs          = 0x10000000 // IORING_OFF_SQES
)

// ringParams is struct io_uring_params.
type ringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqOffsets
	cqOff                                                                  cqOffsets
}

// sqOffsets is struct io_sqring_offsets.
type sqOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// cqOffsets is struct io_cqring_offsets.
type cqOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off, addr     uint64
	len, msgFlags uint32
	userData      uint64
	pad           [3]uint64
}

// cqe is struct io_uring_cqe.
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// ring is one io_uring. It is used by one goroutine at a time.
type ring struct {
	fd           int
	sqMem, cqMem []byte // mmap'd; the same memory when the kernel shares it
	sqeMem       []byte
	sqHead       *uint32 // advanced by the kernel as it takes entries
	sqTail       *uint32
	sqMask       uint32
	sqes         []sqe
	cqHead       *uint32
	cqTail       *uint32 // advanced by the kernel as it completes
	cqMask       uint32
	cqes         []cqe
	queued       uint32 // entries prepared since the last submit
}

// newRing sets up a ring of ringEntries sends.
func newRing() (*ring, error) {
	var p ringParams
	p.flags = ringSetupClamp | ringSetupSubmitAll | ringSetupCoopTaskrun
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, ringEntries, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("netpoll: io_uring_setup: %w", errno)
	}
	r := &ring{fd: int(fd)}
	if err := r.mmap(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// mmap maps the queues and points the ring's fields into them.
func (r *ring) mmap(p *ringParams) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(cqe{}))
	if p.features&ringFeatSingleMmap != 0 {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sqMem, err = ringMap(r.fd, ringOffSQRing, sqSize); err != nil {
		return err
	}
	r.cqMem = r.sqMem
	if p.features&ringFeatSingleMmap == 0 {
		if r.cqMem, err = ringMap(r.fd, ringOffCQRing, cqSize); err != nil {
			return err
		}
	}
	if r.sqeMem, err = ringMap(r.fd, ringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{}))); err != nil {
		return err
	}
	r.sqHead = word(r.sqMem, p.sqOff.head)
	r.sqTail = word(r.sqMem, p.sqOff.tail)
	r.sqMask = *word(r.sqMem, p.sqOff.ringMask)
	r.cqHead = word(r.cqMem, p.cqOff.head)
	r.cqTail = word(r.cqMem, p.cqOff.tail)
	r.cqMask = *word(r.cqMem, p.cqOff.ringMask)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&r.cqMem[p.cqOff.cqes])), p.cqEntries)
	// Entry i of the submission array always names sqe i: entries are
	// filled in ring order.
	array := unsafe.Slice(word(r.sqMem, p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	return nil
}

func ringMap(fd int, off int64, size int) ([]byte, error) {
	b, err := unix.Mmap(fd, off, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("netpoll: io_uring mmap: %w", err)
	}
	return b, nil
}

// word points at the uint32 at offset off of mem.
func word(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }

// close releases the ring.
func (r *ring) close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	if r.cqMem != nil && unsafe.SliceData(r.cqMem) != unsafe.SliceData(r.sqMem) {
		unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
	}
	unix.Close(r.fd)
}

// full reports whether no more sends can be prepared before a submit.
func (r *ring) full() bool { return r.queued == uint32(len(r.sqes)) }

// send prepares a send of b on socket fd, tagged with tag. It never waits
// for room in the socket: a send that would block completes with -EAGAIN.
// b must stay untouched until submit has returned. The ring must not be full.
func (r *ring) send(fd int32, b []byte, tag uint64) {
	tail := atomic.LoadUint32(r.sqTail) + r.queued
	e := &r.sqes[tail&r.sqMask]
	*e = sqe{opcode: ringOpSend, fd: fd, addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b)))),
		len: uint32(len(b)), msgFlags: unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL, userData: tag}
	r.queued++
}

// submit hands the prepared sends to the kernel with one system call, waits
// for all of them (non-blocking sends complete as they are submitted), and
// calls done with each one's tag and result: bytes sent, or a negated errno.
func (r *ring) submit(done func(tag uint64, res int32)) error {
	n := r.queued
	if n == 0 {
		return nil
	}
	atomic.StoreUint32(r.sqTail, atomic.LoadUint32(r.sqTail)+n)
	r.queued = 0
	for reaped := uint32(0); reaped < n; {
		toSubmit := atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit),
			uintptr(n-reaped), ringEnterGetEvents, 0, 0)
		if errno != 0 && errno != unix.EINTR && errno != unix.EAGAIN && errno != unix.EBUSY {
			return fmt.Errorf("netpoll: io_uring_enter: %w", errno)
		}
		reaped += r.reap(done)
	}
	return nil
}

// reap takes every completion the kernel has posted.
func (r *ring) reap(done func(tag uint64, res int32)) uint32 {
	head, tail := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
	for i := head; i != tail; i++ {
		e := &r.cqes[i&r.cqMask]
		done(e.userData, e.res)
	}
	atomic.StoreUint32(r.cqHead, tail)
	return tail - head
}
