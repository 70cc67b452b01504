package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// onHangup calls each of do, in order, for every SIGHUP until ctx ends:
// the one place roost handles SIGHUP. A SIGHUP that arrives while they run
// is kept (one at most) and handled after them, so none overlaps another.
func onHangup(ctx context.Context, do ...func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				for _, f := range do {
					f()
				}
			}
		}
	}()
}
