// Package portable is the goroutine-per-connection transport: it serves
// every connection on systems without epoll (TLS ones included) or with
// transport portable, and, in tests, is the reference the epoll transport
// is checked against.
//
// Each connection has a reader goroutine (decoding frames and keeping the
// activity deadlines with SetReadDeadline) and a writer goroutine (draining
// a byte-capped queue). All session state lives on one dispatcher goroutine,
// like an epoll loop's: readers hand it complete messages and the hub hands
// it deliveries, so sessions need no locks and run the very code the epoll
// loops run.
package portable
