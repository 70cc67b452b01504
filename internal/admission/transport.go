package admission

// Transport is what carries a session: the transport label of the
// connection metrics (roost_connections and the others) and of
// roost_handshakes_refused_total, so that one list names them all.
type Transport uint8

// The transports.
const (
	Epoll        Transport = iota // a WebSocket on the epoll loops, however its handshake came
	Portable                      // a WebSocket on the portable transport's goroutines
	XHRStreaming                  // pusher-js's xhr_streaming fallback
	XHRPolling                    // pusher-js's xhr_polling fallback
	NumTransports
)

// transportNames are the label values, indexed by Transport.
var transportNames = [NumTransports]string{"epoll", "portable", "xhr_streaming", "xhr_polling"}

// String returns the label value of t.
func (t Transport) String() string {
	if t >= NumTransports {
		return "unknown"
	}
	return transportNames[t]
}
