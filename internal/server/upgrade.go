package server

import (
	"crypto/tls"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/netpoll"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// serveWebSocket upgrades GET /app/{key} and hands the connection to a
// transport. What the node cannot take (over a cap, out of descriptors) or
// the app does not allow (its Origin) is refused with an HTTP status before
// the upgrade. A connection refused for its app or protocol is upgraded
// first, so that the client learns why from a pusher:error and a close
// code, as pusher-js expects (docs/protocol.md, "Refusals").
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	ticket, ok := s.admitHandshake(w, r)
	if !ok {
		return
	}
	app, storeErr := s.apps.ByKey(r.Context(), r.PathValue("key"))
	if origin := r.Header.Get("Origin"); app != nil && origin != "" && !app.AllowsOrigin(origin) {
		s.forbidden(w, origin)
		s.gate.Release(ticket)
		return
	}
	fd := -1
	if s.poller != nil {
		var err error
		if fd, err = netpoll.Dup(socketConn(r)); err != nil {
			s.gate.Refuse(admission.Descriptors)
			s.limitedLog.Warn("websocket handshake refused: cannot take the socket", "err", err)
			s.overloaded(w, admission.Descriptors)
			s.gate.Release(ticket)
			return
		}
	}
	s.upgrade(w, r, app, storeErr, ticket, fd)
}

// upgrade answers 101 and hands the connection to its transport; fd is the
// socket's duplicate for an epoll loop, or -1 for the portable transport.
// storeErr is the app store's failure to answer, which the client is told
// to retry later (4100: pusher-js backs off and reconnects).
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request, app *config.App, storeErr error, ticket admission.Ticket, fd int) {
	nc, buffered, st, err := ws.Upgrade(w, r, upgradeOptions(app))
	code, msg := admit(app, rawQuery(r.URL.RawQuery))
	if storeErr != nil {
		code, msg = pusher.OverCapacity, "app store unavailable, try again later"
	}
	if err == nil && code == 0 && app.MaxConnections > 0 && s.hub.Connections(app.ID) >= app.MaxConnections {
		code, msg = pusher.OverQuota, "app is over its connection quota"
	}
	if err != nil || code != 0 {
		if fd >= 0 {
			netpoll.CloseDup(fd)
		}
		s.gate.Release(ticket)
	}
	switch {
	case err != nil:
		s.gate.Refuse(admission.Invalid)
		s.log.Debug("websocket handshake refused", "remote", r.RemoteAddr, "err", err)
	case code != 0:
		s.gate.Refuse(admission.App)
		s.refuse(nc, code, msg)
	case fd < 0:
		s.portable.Serve(nc, buffered, app, st)
		s.gate.Release(ticket)
	default:
		s.fds.put(fd, ticket)
		if tc, ok := nc.(*tls.Conn); ok {
			s.poller.AddTLS(fd, tc, buffered, app, st) // the TLS state moves with the socket
			return
		}
		nc.Close() // the duplicate keeps the socket open
		s.poller.Add(fd, buffered, app, st)
	}
}

// upgradeOptions is what a handshake for app may negotiate, on either path
// (net/http's upgrade and the loops' own): permessage-deflate where the app
// has compression on.
func upgradeOptions(app *config.App) *ws.UpgradeOptions {
	return &ws.UpgradeOptions{Deflate: app != nil && app.Compression}
}

// admit checks the app and the protocol version of a new connection.
func admit(app *config.App, q rawQuery) (pusher.Code, string) {
	switch {
	case app == nil:
		return pusher.AppNotFound, "unknown app key"
	case !app.IsEnabled():
		return pusher.AppDisabled, "app is disabled"
	}
	return checkProtocol(q)
}

var versionRE = regexp.MustCompile(`^\d+(\.\d+){0,2}([-+][0-9A-Za-z.\-]+)?$`)

// checkProtocol applies the Pusher protocol version rules: protocol 5 to 7
// are spoken; without a protocol the client's version must at least be
// well-formed.
func checkProtocol(q rawQuery) (pusher.Code, string) {
	v := q.Get("version")
	if v != "" && !versionRE.MatchString(v) {
		return pusher.InvalidVersion, "invalid version string"
	}
	p := q.Get("protocol")
	if p == "" {
		if v == "" {
			return pusher.NoProtocol, "no protocol version given"
		}
		return 0, ""
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 5 || n > 7 {
		return pusher.UnsupportedProtocol, "unsupported protocol version " + strconv.Quote(p)
	}
	return 0, ""
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
