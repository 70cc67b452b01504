package server

import (
	"net/http"

	"github.com/roostproject/roost/internal/admission"
	"github.com/roostproject/roost/internal/fallback"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
)

// newFallback serves pusher-js's HTTP fallbacks (xhr_streaming,
// xhr_polling) on the portable transport's shard: their sessions run on its
// dispatcher goroutine, as its connections' do.
func (s *Server) newFallback(env *session.Env, pol transport.Policy, shard int) *fallback.Handler {
	return fallback.New(fallback.Config{
		Env: env, Policy: pol, Shard: shard, Do: s.portable.Do,
		Admit: s.admitFallback, Logger: s.limitedLog, Route: s.fallbackRoute(), Loop: s.fallbackLoopOf(),
	})
}

// addFallbackCarriers counts, drains and disables the fallback sessions
// like the other transports'. They go before the portable transport, whose
// dispatcher runs them and must outlive their end.
func (s *Server) addFallbackCarriers() {
	streaming, polling := s.fallback.Carriers()
	s.addCarrier(streaming, admission.XHRStreaming, streaming.Stats())
	s.addCarrier(polling, admission.XHRPolling, polling.Stats())
}

// admitFallback asks the admission door about the first request of a
// fallback session, as a WebSocket handshake asks it.
func (s *Server) admitFallback(w http.ResponseWriter, r *http.Request, key, tr string) fallback.Admission {
	kind := admission.XHRStreaming
	if tr == admission.XHRPolling.String() {
		kind = admission.XHRPolling
	}
	d := s.door.Admit(r.Context(), sessionRequest(r, kind, key))
	switch d.Kind {
	case admission.Admit:
		return fallback.Admission{App: d.App, Release: func() { s.door.Release(d.Ticket) }}
	case admission.RefusePusher:
		return fallback.Admission{Code: d.Code, Reason: d.Message}
	}
	d.WriteHTTP(w)
	return fallback.Admission{}
}
