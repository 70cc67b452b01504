// Package wheel is a hashed timing wheel for one epoll loop: it tracks the
// activity, pong and handshake deadlines of every connection the loop owns
// without a goroutine, a timer object or a heap pointer per connection.
//
// It follows scheme 6 of Varghese and Lauck, "Hashed and Hierarchical Timing
// Wheels" (SOSP 1987): an array of slots, each an unsorted doubly linked list,
// with a deadline hashed to the slot of its tick modulo the number of slots.
// Deadlines beyond one rotation stay in their slot and are skipped until their
// rotation comes round (lazy re-bucketing), so Schedule and Cancel are O(1)
// whatever the deadline.
//
// The lists are intrusive in the wheel's own arrays, indexed by a small int32
// id (the owner's slot for a connection): next and prev links and the deadline. The arrays
// hold no pointers, so the garbage collector never scans them, and after the
// arrays have grown to the highest id no operation allocates.
//
// A Wheel is not safe for concurrent use: the loop that owns it is its only
// user. Time is always an argument (Unix nanoseconds), never read from the
// clock, so tests drive it with synthetic time.
package wheel
