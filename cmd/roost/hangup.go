package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/roostproject/roost/internal/server"
)

// onHangup is the one SIGHUP handler: until ctx ends, each SIGHUP re-reads
// what can change while roost runs. Each reload logs its own result.
func onHangup(ctx context.Context, srv *server.Server) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if srv.TLSEnabled() {
				srv.ReloadCertificates()
			}
		}
	}
}
