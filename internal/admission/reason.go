package admission

// Reason is why a session was refused: the reason label of
// roost_handshakes_refused_total.
type Reason uint8

// The reasons. Door.Admit refuses for all but Descriptors and Invalid,
// which a transport finds itself and counts with Door.Refuse.
const (
	Admitted      Reason = iota // not a refusal
	Connections                 // the node holds max_connections
	IPConnections               // the address holds max_connections_per_ip
	Rate                        // the node's handshakes per second are spent
	IPRate                      // the address's handshakes per second are spent
	Memory                      // the process is over its memory ceiling
	Descriptors                 // no file descriptor left to serve the socket
	Origin                      // the Origin header is not allowed for the app
	Invalid                     // not a valid handshake (HTTP 4xx), or an invalid PROXY header
	App                         // refused in Pusher's terms: unknown or disabled app, quota, protocol
	NumReasons
)

// names are the label values, indexed by Reason.
var names = [NumReasons]string{"", "connections", "ip_connections", "rate", "ip_rate", "memory",
	"descriptors", "origin", "invalid", "app"}

// String returns the label value of r.
func (r Reason) String() string {
	if r >= NumReasons {
		return "unknown"
	}
	return names[r]
}

// Overload reports whether r says the node or the client is over a limit
// that will pass, so the client should come back later (HTTP 503 with
// Retry-After).
func (r Reason) Overload() bool { return r >= Connections && r <= Descriptors }
