// Package server wires roost together: the HTTP server (WebSocket handshake,
// HTTP API, health), the hub, and the transports that serve upgraded
// connections. It is the only package that imports all the others.
package server
