package testutil

import (
	"context"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

func TestPollGivesUpAtTheTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		calls := 0
		if Poll(time.Second, func() bool { calls++; return false }) {
			t.Fatal("Poll reported a condition that never held")
		}
		if waited := time.Since(start); waited < time.Second || waited > time.Second+pollEvery {
			t.Fatalf("Poll gave up after %v, want 1s", waited)
		}
		if calls < 2 {
			t.Fatalf("Poll checked the condition %d times", calls)
		}
	})
}

func TestPollReturnsOnceTheConditionHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ready := start.Add(35 * time.Millisecond)
		if !Poll(time.Second, func() bool { return !time.Now().Before(ready) }) {
			t.Fatal("Poll missed the condition")
		}
		if waited := time.Since(start); waited > 35*time.Millisecond+pollEvery {
			t.Fatalf("Poll returned %v after the start, want within %v of 35ms", waited, pollEvery)
		}
	})
}

func TestPipeListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := NewPipeListener()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				t.Error(err)
				return
			}
			c.Write([]byte("hi"))
			c.Close()
		}()
		c, err := ln.DialContext(t.Context(), "tcp", "anywhere:80")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 2)
		if _, err := c.Read(buf); err != nil || string(buf) != "hi" {
			t.Fatalf("read %q, %v", buf, err)
		}
		ln.Close()
		if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v", err)
		}
		if _, err := ln.DialContext(context.Background(), "tcp", "x"); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("DialContext after Close: %v", err)
		}
	})
}

func TestGoroutineID(t *testing.T) {
	stacks := goroutines()
	if id := goroutineID(stacks[0]); id == "" || id == stacks[0] {
		t.Fatalf("no id in %q", stacks[0])
	}
	if ids := goroutineIDs(stacks); len(ids) != len(stacks) {
		t.Fatalf("%d ids for %d goroutines", len(ids), len(stacks))
	}
}
