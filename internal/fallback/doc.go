// Package fallback serves pusher-js's HTTP fallback transports,
// xhr_streaming and xhr_polling, for clients whose WebSockets a proxy, a
// carrier or an antivirus product breaks. Each fallback session runs the
// same session code a WebSocket does (session.Conn): the session hands it
// complete WebSocket text frames and the hub its shared fan-out frames; the
// package strips the frame header and carries the payload in pusher-js's
// framing.
//
// The wire, as pusher-js 8.x speaks it (src/core/http/http_socket.ts,
// http_request.ts, http_streaming_socket.ts, http_polling_socket.ts):
//
//	POST /pusher/app/{key}/{0-999}/{8 base-32 chars}/xhr_streaming?protocol=7&...  a held stream
//	POST /pusher/app/{key}/{server}/{session}/xhr                                  one poll
//	POST /pusher/app/{key}/{server}/{session}/xhr_send   body ["<message>",...]    client messages
//
// Every response line ends with "\n": "o" opens a session (once, first),
// `a["<message>",...]` carries Pusher messages as JSON strings, "h" is a
// heartbeat and `c[code,"reason"]` closes the session with a Pusher close
// code, which pusher-js treats as a WebSocket close code. A stream stays
// open; pusher-js opens a new one for the same session after 256 KiB, and
// ends the whole connection when a stream ends. A poll answers what is
// queued, or "h" after PollWait, and ends; pusher-js polls again at once.
// A streaming client answers each "h" with an empty xhr_send ("[]") and
// pings with one after its activity timeout; the server answers a ping with
// "h" and not the answer to its own "h" (see Handler.heartbeat), so the two
// never echo each other for ever.
//
// Sessions of both kinds live in one table keyed by app key, server and
// session. Every session call runs on the hub shard's goroutine the
// Config names (Config.Do), as the portable transport's do; HTTP handlers
// only queue client messages for it and take what the session queued. What
// waits for the next request is bounded like a WebSocket's backlog
// (Policy.WriteBacklog and the node's Budget): past it the session ends with
// 4100. A session with no request for Policy.Silence(false) plus PongWait
// ends with 4201; one with no stream or poll held for Config.Detach ends as
// the client's close (pusher-js aborts its request and says nothing when it
// disconnects).
//
// Whether a first request may open a session is decided outside, by
// Config.Admit, the same checks a WebSocket handshake passes. In a cluster,
// Config.Route (package route) hands a request for a session another node
// holds to that node, and learns which sessions this node holds.
package fallback
