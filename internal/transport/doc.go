// Package transport is what the two transports, netpoll's epoll loops and
// portable's goroutines, decide alike: when a silent connection is pinged
// and when it is given up, how a client's close is answered, how much a
// connection may send and queue, and why a connection ended.
//
// Each transport keeps only its own mechanics (epoll and a timing wheel, or
// goroutines and socket deadlines) and takes every number and every verdict
// from here, so that a client sees the same server whichever one serves it.
// The package imports only leaves (ws, pusher, connstats).
package transport
