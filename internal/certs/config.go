package certs

import "crypto/tls"

// ServerConfig returns the configuration of a TLS listener that serves
// src's certificates.
func ServerConfig(src Source) *tls.Config {
	c := &tls.Config{GetCertificate: src.GetCertificate, MinVersion: tls.VersionTLS12}
	if a, ok := src.(*ACME); ok {
		c.NextProtos = a.NextProtos()
	}
	return c
}
