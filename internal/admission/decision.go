package admission

import (
	"net/http"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
)

// Kind is what a Decision tells the transport to do.
type Kind uint8

// The kinds of Decision.
const (
	// Admit opens the session: Ticket and App are set.
	Admit Kind = iota
	// RefuseHTTP refuses the session before anything is upgraded or
	// opened, with Status and Message (WriteHTTP).
	RefuseHTTP
	// RefusePusher refuses it in Pusher's terms, with Code and Message:
	// pusher-js decides by the code whether to give up, back off or retry,
	// while an HTTP error looks to it like a network failure
	// (docs/protocol.md, "Refusals"). A WebSocket is upgraded first and
	// gets a pusher:error and a close frame; an HTTP fallback session
	// answers with the same error and close in its own framing.
	RefusePusher
	// Defer is answered only to a Request with Inline set, where the
	// decision needs the app store or a refusal in Pusher's terms: ask
	// again from a goroutine that may wait and upgrade. Nothing was
	// claimed or counted.
	Defer
)

// Decision is the answer to a Request. Each transport renders it its own
// way; what it says does not depend on the transport.
type Decision struct {
	Kind Kind
	// App is the app of an admitted session; with RefusePusher, the app
	// asked for if it exists.
	App *config.App
	// Ticket is an admitted session's place within the caps: give it
	// back with Door.Release when the session ends.
	Ticket Ticket
	// Reason is why the session is refused: the reason label it is
	// counted under. Admitted for Admit and Defer.
	Reason Reason
	// Status is the HTTP status of a RefuseHTTP: 503 over a cap (Reason
	// says which), 403 for an Origin the app does not allow.
	Status int
	// RetryAfter is when a client refused with 503 may try again.
	RetryAfter time.Duration
	// Code is the Pusher error and close code of a RefusePusher.
	Code pusher.Code
	// Message says why, for the HTTP body or the pusher:error.
	Message string
}

// WriteHTTP answers a RefuseHTTP on w: the status and message, with
// Retry-After on a 503, and Connection: close, so that the refused
// client's descriptor is free at once.
func (d *Decision) WriteHTTP(w http.ResponseWriter) {
	if d.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfter/time.Second)))
	}
	w.Header().Set("Connection", "close")
	http.Error(w, d.Message, d.Status)
}

// refusal is the Decision that refuses a session for reason r before
// anything is upgraded: a 503 for a cap, a 403 for the Origin, a 400 for
// an invalid request.
func refusal(r Reason) Decision {
	switch {
	case r.Overload():
		return Decision{Kind: RefuseHTTP, Reason: r, Status: http.StatusServiceUnavailable,
			RetryAfter: retryAfter(r), Message: "roost: over capacity (" + r.String() + "), retry later"}
	case r == Origin:
		return Decision{Kind: RefuseHTTP, Reason: r, Status: http.StatusForbidden, Message: "roost: origin not allowed for this app"}
	}
	return Decision{Kind: RefuseHTTP, Reason: r, Status: http.StatusBadRequest, Message: "roost: not a valid request for a session"}
}

// inPusherTerms is the Decision that refuses a session for app (nil when
// there is none) with a Pusher code.
func inPusherTerms(app *config.App, code pusher.Code, msg string) Decision {
	return Decision{Kind: RefusePusher, App: app, Reason: App, Code: code, Message: msg}
}

// retryAfter is the Retry-After of a 503: a rate refills within a second;
// a full node or a memory ceiling takes longer to clear.
func retryAfter(r Reason) time.Duration {
	if r == Rate || r == IPRate {
		return time.Second
	}
	return 5 * time.Second
}
