// Package tlsidle gives back what a crypto/tls server connection keeps
// after its handshake and an idle connection does not need, so that an
// idle wss:// connection on an epoll loop costs its cipher state and little
// else (docs/design.md, "TLS on the epoll transport").
//
// A tls.Conn reads records into a bytes.Buffer that grows to the largest
// record it has seen (the ClientHello, typically 0.5 to 2 KB, or a 16 KB
// record) and never shrinks; its handshake buffer keeps the ClientHello's
// size too. crypto/tls offers no call to release them, so Shrink replaces
// them with their zero values, which crypto/tls reads as empty buffers, and
// only when they hold no data. A tls.Conn also keeps, for its whole life,
// state that a server uses only during the handshake or for calls roost
// does not make once a loop owns the connection (the keying-material
// exporter, the resumption secret, the handshake function); Forget drops
// it. The field offsets are looked up by name and type once; if a Go
// release renames or retypes one, the function that needs it does nothing
// (the connection stays correct, only larger) and this package's tests fail,
// so the change is noticed. No cryptography happens here: records are
// read, decrypted, encrypted and written by crypto/tls as before.
package tlsidle
