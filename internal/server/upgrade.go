package server

import (
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// serveWebSocket upgrades GET /app/{key} and hands the connection to a
// transport. A request that is no valid opening handshake is answered
// with ws's 4xx; then the admission door decides (Door.Admit), and what it
// refuses before the upgrade (over a cap, an Origin the app does not
// allow) gets its HTTP status. One it refuses in Pusher's terms (the app,
// the protocol, the quota) is upgraded first, so that the client learns
// why from a pusher:error and a close code, as pusher-js expects
// (docs/protocol.md, "Refusals").
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	tr := s.wsTransport()
	if _, herr := ws.CheckHandshake(r); herr != nil {
		herr.Write(w)
		s.door.Refuse(tr, admission.Invalid)
		s.log.Debug("websocket handshake refused", "remote", r.RemoteAddr, "err", herr)
		return
	}
	d := s.door.Admit(r.Context(), sessionRequest(r, tr, r.PathValue("key")))
	if d.Kind == admission.RefuseHTTP {
		d.WriteHTTP(w)
		return
	}
	fd := -1
	if d.Kind == admission.Admit && s.poller != nil {
		var err error
		if fd, err = netpoll.Dup(socketConn(r)); err != nil {
			s.door.Release(d.Ticket)
			s.limitedLog.Warn("websocket handshake refused: cannot take the socket", "err", err)
			refused := s.door.Refuse(tr, admission.Descriptors)
			refused.WriteHTTP(w)
			return
		}
	}
	s.upgrade(w, r, &d, fd)
}

// sessionRequest is what the admission door is asked about a request of
// net/http's that opens a session on tr for the app with key: a WebSocket
// handshake, or an HTTP fallback session's first request.
func sessionRequest(r *http.Request, tr admission.Transport, key string) admission.Request {
	return admission.Request{Transport: tr, AppKey: key, Query: admission.Query(r.URL.RawQuery),
		Origin: r.Header.Get("Origin"), Client: remoteIP(r)}
}

// upgrade answers 101 and hands the connection to its transport, or
// refuses it in Pusher's terms as d says; fd is the socket's duplicate for
// an epoll loop, or -1 for the portable transport and for a refusal.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request, d *admission.Decision, fd int) {
	nc, buffered, st, err := ws.Upgrade(w, r, upgradeOptions(d.App))
	if err != nil && d.Kind == admission.Admit {
		if fd >= 0 {
			netpoll.CloseDup(fd)
		}
		s.door.Release(d.Ticket)
		s.door.Refuse(s.wsTransport(), admission.Invalid)
	}
	switch {
	case err != nil:
		s.log.Debug("websocket handshake failed", "remote", r.RemoteAddr, "err", err)
	case d.Kind == admission.RefusePusher:
		s.refuse(nc, d.Code, d.Message)
	case fd < 0:
		s.portable.Serve(nc, buffered, d.App, st)
		s.door.Release(d.Ticket)
	default:
		s.fds.put(fd, d.Ticket)
		if tc, ok := nc.(*tls.Conn); ok {
			s.poller.AddTLS(fd, tc, buffered, d.App, st) // the TLS state moves with the socket
			return
		}
		nc.Close() // the duplicate keeps the socket open
		s.poller.Add(fd, buffered, d.App, st)
	}
}

// upgradeOptions is what a handshake for app may negotiate, on either path
// (net/http's upgrade and the loops' own): permessage-deflate where the app
// has compression on.
func upgradeOptions(app *config.App) *ws.UpgradeOptions {
	return &ws.UpgradeOptions{Deflate: app != nil && app.Compression}
}

// refuse sends pusher:error and the close code, then waits briefly for the
// client's close frame before dropping the socket.
func (s *Server) refuse(nc net.Conn, code pusher.Code, msg string) {
	defer nc.Close()
	frame := ws.AppendFrame(nil, ws.OpText, pusher.AppendError(nil, code, msg))
	frame = ws.AppendClose(frame, ws.CloseCode(code), msg)
	nc.SetDeadline(time.Now().Add(s.cfg.Limits.HandshakeTimeout))
	if _, err := nc.Write(frame); err != nil {
		return
	}
	buf := make([]byte, 512)
	for {
		if _, err := nc.Read(buf); err != nil {
			return
		}
	}
}
