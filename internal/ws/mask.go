package ws

import "encoding/binary"

// maskBytes applies (and, being an XOR, removes) the RFC 6455 section 5.3
// masking to p, which starts at payload offset 0. It works eight bytes at a
// time: the key repeats every four bytes, so a doubled key lines up with
// every aligned 8-byte word.
func maskBytes(key [4]byte, p []byte) {
	k32 := binary.LittleEndian.Uint32(key[:])
	k := uint64(k32)<<32 | uint64(k32)
	for len(p) >= 32 {
		_ = p[31]
		binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)^k)
		binary.LittleEndian.PutUint64(p[8:], binary.LittleEndian.Uint64(p[8:])^k)
		binary.LittleEndian.PutUint64(p[16:], binary.LittleEndian.Uint64(p[16:])^k)
		binary.LittleEndian.PutUint64(p[24:], binary.LittleEndian.Uint64(p[24:])^k)
		p = p[32:]
	}
	for len(p) >= 8 {
		binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)^k)
		p = p[8:]
	}
	for i := range p {
		p[i] ^= key[i&3]
	}
}
