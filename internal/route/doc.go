// Package route lets pusher-js's HTTP fallback sessions (package fallback)
// work behind a load balancer without sticky sessions. pusher-js picks a
// session's server number and id itself, and each of its later requests
// (a new stream, a poll, an xhr_send) may reach any node. A session lives
// on the node that got its first request; that node records it in the
// cluster's store (cluster.Routes: app key, server and session -> the
// node's id and reachable address, advertise_url), before the session's
// "o" is written, so every later request finds the record. A node that
// gets a request for a session it does not hold reads the record and
// forwards the request to the holder with a reverse proxy that flushes
// each write; the forwarded request carries Header (Roost-Forwarded-By), and
// a node answers such a request itself or with 404, never forwarding it on.
//
// The holder renews its records every cluster.RouteTTL/3 in one batch and
// removes a session's record when it ends; a dead node's records lapse
// after cluster.RouteTTL. When there is no record, the node serves the
// request itself, as on one node: a first request opens a session, a later
// one is 404. When the store is unreachable the node does the same, so a
// session opened then is found only on its own node.
//
// A WebSocket never comes here. Opening a session costs a store read (no
// record yet) and a write. A fallback request costs nothing more on the
// node that holds its session; on any other node it costs one store
// read and one hop to the holder, over a kept-alive connection, and a held
// stream or poll keeps a request on each node (net/http's, and the proxy's
// to the holder on the forwarding node) for as long as it lasts. Each
// client message is its own xhr_send, which pusher-js sends without
// waiting for the one before, so through different nodes two may overtake
// each other.
package route
