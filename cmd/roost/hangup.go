package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/roostproject/roost/internal/server"
)

// onHangup is the one SIGHUP handler: from now until stop is called, each
// SIGHUP re-reads what can change while srv runs. Each reload logs its own
// result.
func onHangup(srv *server.Server) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
				reload(srv)
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

// reload re-reads what can change while srv runs: the TLS certificate.
func reload(srv *server.Server) {
	if srv.TLSEnabled() {
		srv.ReloadCertificates()
	}
}
