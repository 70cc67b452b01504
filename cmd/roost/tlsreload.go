package main

import "github.com/roostproject/roost/internal/server"

// reloadCertificates reads the TLS certificate again, when srv serves TLS
// itself; the result is logged either way (SIGHUP).
func reloadCertificates(srv *server.Server) {
	if srv.TLSEnabled() {
		srv.ReloadCertificates()
	}
}
