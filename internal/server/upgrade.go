package server

import (
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/pusher"
	"github.com/roostproject/roost/internal/ws"
)

// serveWebSocket upgrades GET /app/{key} and hands the connection to a
// transport. A refused connection is upgraded first, so that the client
// learns why from a pusher:error and a close code, as pusher-js expects
// (docs/protocol.md, "Refusals").
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	nc, buffered, err := ws.Upgrade(w, r)
	if err != nil {
		s.refused.Add(1)
		s.log.Debug("websocket handshake refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	app, err := s.apps.ByKey(r.Context(), r.PathValue("key"))
	code, msg := admit(app, r.URL.Query())
	if err != nil {
		code, msg = pusher.OverCapacity, "app store unavailable, try again later"
	}
	if code == 0 && app.MaxConnections > 0 && s.hub.Connections(app.ID) >= app.MaxConnections {
		code, msg = pusher.OverQuota, "app is over its connection quota"
	}
	if code != 0 {
		s.refused.Add(1)
		s.refuse(nc, code, msg)
		return
	}
	if s.Transport() == "portable" {
		s.portable.Serve(nc, buffered, app)
		return
	}
	if err := s.poller.Add(nc, buffered, app); err != nil {
		s.log.Warn("connection not handed to a loop", "err", err)
	}
}

// admit checks the app and the protocol version of a new connection.
func admit(app *config.App, q url.Values) (pusher.Code, string) {
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
func checkProtocol(q url.Values) (pusher.Code, string) {
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
