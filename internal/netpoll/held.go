package netpoll

// Feed is what a held socket writes: the rest of an HTTP response that
// stays open (package fallback's xhr_streaming streams). Its methods run on
// the loop's goroutine and must not block.
type Feed interface {
	// Take returns what to write now, and whether the socket is to be
	// closed once it is written.
	Take() (out []byte, last bool)
	// Gone tells that the socket is closed: after the last Take was
	// written, when the client closed or reset it, after End, or when the
	// loops stop. It is called once.
	Gone()
}
