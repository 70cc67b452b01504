package wheel_test

import (
	"fmt"
	"time"

	"github.com/roostproject/roost/internal/wheel"
)

func Example() {
	start := time.Unix(1_700_000_000, 0).UnixNano()
	w := wheel.New(time.Second, 256, start)
	w.Schedule(42, start+int64(120*time.Second)) // fd 42 times out in 120 s
	fmt.Println(w.NextTimeout(start))            // epoll_wait timeout

	now := start + int64(121*time.Second)
	w.Advance(now, func(fd int32) { fmt.Println("timed out:", fd) })
	fmt.Println(w.NextTimeout(now))
	// Output:
	// 2m0s
	// timed out: 42
	// -1ns
}
