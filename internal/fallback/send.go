package fallback

import (
	"errors"
	"io"
	"net/http"
)

// serveSend takes a session's client messages (xhr_send): each is handed
// to the session in order on the shard's goroutine. Bad input is refused
// with 400 (413 for a message over max_message_size) and the session
// carries on; an unknown session is 404.
func (h *Handler) serveSend(w http.ResponseWriter, r *http.Request) {
	allowOrigin(w, r)
	key := sessionKey(r)
	c := h.lookup(key)
	if c == nil && h.forward(w, r, key) {
		return
	}
	if c == nil {
		http.Error(w, "roost: no such session (it ended, or never opened on this node)", http.StatusNotFound)
		return
	}
	msgs, status, err := h.readSend(w, r)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	c.touch(len(msgs) == 0)
	st := &h.stats[c.kind]
	for _, m := range msgs {
		st.MessagesIn.Add(1)
		st.BytesIn.Add(int64(len(m)))
		h.cfg.Do(func() { c.call().HandleText(m) })
	}
	w.WriteHeader(http.StatusNoContent)
}

// readSend reads and decodes an xhr_send body, with the HTTP status of its
// refusal. The body may hold a message of max_message_size whose every
// byte JSON escapes in six (\u00XX), and little more.
func (h *Handler) readSend(w http.ResponseWriter, r *http.Request) ([][]byte, int, error) {
	max := h.cfg.Policy.MaxMessage
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(6*max+64)))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, http.StatusRequestEntityTooLarge, errTooLarge
	case err != nil:
		return nil, http.StatusBadRequest, errors.New("roost: reading the xhr_send body: " + err.Error())
	}
	msgs, err := parseSend(body, max)
	if errors.Is(err, errTooLarge) {
		return nil, http.StatusRequestEntityTooLarge, err
	}
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return msgs, 0, nil
}

// touch records a request from the client; heartbeat says it carried no
// message ("[]"). A streaming client sends one after its activity timeout
// and expects activity within its pong timeout, and sends one in answer to
// every "h" it receives: the server answers the first with "h" and takes
// the second in silence, so the two never echo each other. A polling
// client hears from every poll, so its heartbeats need no answer.
func (c *conn) touch(heartbeat bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touchLocked()
	if !heartbeat || c.kind != streaming || c.closing {
		return
	}
	if c.echo {
		c.echo = false
		return
	}
	c.echo = true
	c.pushLocked(item{line: heartbeatLine}, len(heartbeatLine))
}
