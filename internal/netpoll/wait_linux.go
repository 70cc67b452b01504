package netpoll

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A loop that blocked in epoll_wait(2) would hold its thread in a system
// call, and the Go runtime would take its P away each time (when every P
// is in a system call, as soon as its monitor thread looks), which keeps
// that monitor polling every 20 µs while the loops sleep: at 18,000 idle
// connections this cost more CPU than answering their pings. So a loop
// waits in Go's own network poller instead, on its epoll descriptor (which
// is readable while events are ready), and calls epoll_wait only with a
// zero timeout. Its goroutine is then parked like any other waiting on a
// socket, its P is free, and the runtime's monitor sleeps.

// waiter parks a loop's goroutine until its epoll instance has events.
type waiter struct {
	f        *os.File        // a duplicate of the epoll descriptor, in Go's poller
	rc       syscall.RawConn // f's, for reads that park
	deadline int64           // the read deadline last set, Unix ns; 0 for none

	// ready is the function Read calls, made once so that a wait does not
	// allocate a closure; it polls into events and leaves n and err.
	ready  func(uintptr) bool
	events []unix.EpollEvent
	n      int
	err    error
}

// newWaiter registers a duplicate of epfd with Go's poller; nil when that
// fails, and the loop then blocks in epoll_wait.
func newWaiter(epfd int) *waiter {
	fd, err := unix.FcntlInt(uintptr(epfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if unix.SetNonblock(fd, true) != nil {
		unix.Close(fd)
		return nil
	}
	f := os.NewFile(uintptr(fd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil || f.SetReadDeadline(time.Time{}) != nil { // no deadline: not in the poller
		f.Close()
		return nil
	}
	w := &waiter{f: f, rc: rc}
	w.ready = func(uintptr) bool {
		w.n, w.err = poll(epfd, w.events)
		return w.n != 0 || w.err != nil
	}
	return w
}

// wait fills events with what is ready, waiting until at (Unix ns; 0: until
// woken; at or before now: not at all); it returns how many, 0 when at
// passed first.
func (l *loop) wait(events []unix.EpollEvent, at int64) (int, error) {
	w := l.waits
	if w == nil {
		return unix.EpollWait(l.epfd, events, msUntil(at))
	}
	if at != 0 && at <= time.Now().UnixNano() {
		return poll(l.epfd, events)
	}
	w.setDeadline(at)
	w.events, w.n, w.err = events, 0, nil
	if err := w.rc.Read(w.ready); err != nil && err != os.ErrDeadlineExceeded {
		return 0, err
	}
	return w.n, w.err
}

// msUntil converts a deadline for epoll_wait: milliseconds from now,
// rounded up so that the loop never wakes before it; -1 for none.
func msUntil(at int64) int {
	if at == 0 {
		return -1
	}
	d := max(at-time.Now().UnixNano(), 0)
	return int((d + int64(time.Millisecond) - 1) / int64(time.Millisecond))
}

// setDeadline sets the read deadline to at (0: none). The wheel's next
// slot rarely moves between two waits, so the runtime's timer is touched
// only when it does.
func (w *waiter) setDeadline(at int64) {
	if at == w.deadline {
		return
	}
	w.deadline = at
	if at == 0 {
		w.f.SetReadDeadline(time.Time{})
		return
	}
	w.f.SetReadDeadline(time.Unix(0, at))
}

// poll is epoll_wait(2) with a zero timeout. It never blocks, so it is a
// raw system call: the runtime need not know the thread left.
func poll(epfd int, events []unix.EpollEvent) (int, error) {
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
			uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

// The loop's sockets are non-blocking, so their reads and writes return at
// once, never parking the thread: they are raw system calls too. A system
// call the runtime is told about leaves the P in a state its monitor
// watches and may take it away from, waking the monitor's fast polling
// again.

// readFD is read(2) on a non-blocking descriptor.
func readFD(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(base(p)), uintptr(len(p)))
	return rawResult(n, e)
}

// writeFD is write(2) on a non-blocking descriptor.
func writeFD(fd int, p []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(base(p)), uintptr(len(p)))
	return rawResult(n, e)
}

// base is the address of p's first byte, nil when p is empty.
func base(p []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(p)) }

// rawResult is what unix.Read and unix.Write return: -1 with the error.
func rawResult(n uintptr, e unix.Errno) (int, error) {
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
