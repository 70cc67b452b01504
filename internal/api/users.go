package api

import (
	"net/http"
	"unicode/utf8"

	"github.com/roostproject/roost/internal/pusher"
)

// users serves GET /apps/{id}/channels/{name}/users (Pusher HTTP API
// reference, "GET users"): the ids of a presence channel's members.
func (h *handler) users(w http.ResponseWriter, r *http.Request, req *request) error {
	name := r.PathValue("channel")
	if err := pusher.ValidateChannel(name); err != nil {
		return errorf(http.StatusBadRequest, "channel: %v", err)
	}
	if !isPresence(name) {
		return errorf(http.StatusBadRequest, "channel: users are only listed for presence channels")
	}
	return h.list(w, r, func(b []byte) ([]byte, error) {
		ids, err := h.cfg.Backend.Users(r.Context(), req.app.ID, name)
		if err != nil {
			return b, unavailable(err)
		}
		return appendUsers(b, ids), nil
	})
}

// terminate serves POST /apps/{id}/users/{user}/terminate_connections
// (Pusher docs, "Terminating user connections"). The body ({} from the Node
// SDK) carries nothing and is only signed. It answers once the other nodes
// have been sent the termination, as a publish does (WaitStored): a
// connection that signs in as the user after the answer, on any node, is
// not closed by it (a node holds what it publishes for a moment after an
// outage, and a sign-in meanwhile was closed).
func (h *handler) terminate(w http.ResponseWriter, r *http.Request, req *request) error {
	user := r.PathValue("user")
	if user == "" || !utf8.ValidString(user) || utf8.RuneCountInString(user) > pusher.MaxUserIDLength {
		return errorf(http.StatusBadRequest, "user id: must be 1 to %d characters of UTF-8", pusher.MaxUserIDLength)
	}
	h.cfg.Backend.TerminateUser(req.app.ID, user)
	h.cfg.Backend.WaitStored(r.Context())
	return writeEmpty(w)
}
