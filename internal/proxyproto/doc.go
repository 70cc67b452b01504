// Package proxyproto reads the PROXY protocol header (versions 1 and 2, as
// HAProxy's "The PROXY protocol" specification defines them) that a load
// balancer such as HAProxy or an AWS Network Load Balancer sends before a
// connection's own bytes, to say which client it forwards.
//
// Parse decodes a header from bytes already read, for the epoll loops that
// read request heads themselves; Listener reads one from each connection a
// trusted peer opens, for net/http and TLS. Both are bounded: a header is
// at most MaxHeader bytes and must arrive within a deadline.
package proxyproto
