package fallback

import "net/http"

// Router hands a request for a session this node does not hold to the
// node that does, behind a load balancer without sticky sessions (package
// route), and learns which sessions this node holds. Config.Route is nil on
// one node.
type Router interface {
	// Forward serves r, of the session under key, if another node holds
	// it, or answers 404 if r was forwarded here already; false means
	// serve it here.
	Forward(w http.ResponseWriter, r *http.Request, key string) bool
	// Held records that this node holds the session under key; it returns
	// once the others can find it, before the session's "o" is written.
	Held(key string)
	// Ended records that the session under key ended here. It does not
	// block.
	Ended(key string)
}

// forward is Router.Forward, false on one node.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, key string) bool {
	return h.cfg.Route != nil && key != "" && h.cfg.Route.Forward(w, r, key)
}

// held is Router.Held.
func (h *Handler) held(key string) {
	if h.cfg.Route != nil {
		h.cfg.Route.Held(key)
	}
}

// ended is Router.Ended.
func (h *Handler) ended(key string) {
	if h.cfg.Route != nil {
		h.cfg.Route.Ended(key)
	}
}
