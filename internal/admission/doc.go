// Package admission decides, before a WebSocket handshake is answered,
// whether the node takes one more connection, and counts every handshake it
// refuses by reason.
//
// A Gate holds the node's caps: open connections on the node and per client
// address, new handshakes per second on the node and per address (token
// buckets), and a memory ceiling. A refused handshake is answered with an
// HTTP status before the upgrade, never with 101 Switching Protocols and
// then a dropped socket. The caps left at zero are off; the server derives
// the connection cap from the file limit (FileLimitConnections) and the
// memory ceiling from the cgroup's memory.max (CgroupMemory).
package admission
