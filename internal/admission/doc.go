// Package admission decides whether a client may open a session, for
// every transport: a WebSocket upgraded on an epoll loop or by net/http,
// and the first request of an HTTP fallback session (xhr_streaming,
// xhr_polling). One Door takes the whole decision: the app (it exists, is
// enabled, allows the Origin, speaks the protocol, has room under
// apps[].max_connections), then the node's caps (open sessions on the node
// and per client address, new sessions per second on the node and per
// address as token buckets, a memory ceiling). It counts every refusal by
// transport and reason, the labels of roost_handshakes_refused_total.
//
// The answer is one Decision, which each transport renders its own way:
// Admit with a Ticket to give back when the session ends; RefuseHTTP, an
// HTTP status and message answered before anything is upgraded (never 101
// Switching Protocols and then a dropped socket); RefusePusher, a Pusher
// code and message, which pusher-js must receive in its protocol to know
// whether to retry. A transport that cannot wait or refuse in Pusher's
// terms (an epoll loop) asks with Request.Inline and is told to Defer to
// one that can.
//
// An HTTP fallback session's first request asks as a WebSocket does:
//
//	d := door.Admit(r.Context(), admission.Request{
//		Transport: admission.XHRStreaming, // or XHRPolling
//		AppKey:    r.PathValue("key"),
//		Query:     admission.Query(r.URL.RawQuery),
//		Origin:    r.Header.Get("Origin"),
//		Client:    client, // the address trusted proxies name
//	})
//	switch d.Kind {
//	case admission.RefuseHTTP:
//		d.WriteHTTP(w)
//	case admission.RefusePusher:
//		// 200: "o", then a pusher:error with d.Code and d.Message, then c[d.Code, d.Message]
//	case admission.Admit:
//		// open the session for d.App; door.Release(d.Ticket) when it ends
//	}
//
// Caps left at zero are off; the server derives the connection cap from
// the file limit (FileLimitConnections) and the memory ceiling from the
// cgroup's memory.max (CgroupMemory).
package admission
