package server

import "strings"

// httpErrors is net/http's error log (http.Server.ErrorLog): each line is
// logged by its kind ("http: Accept error"), at most once a second, with
// the rest of the line as detail, so that a process out of descriptors
// writes one accept error a second with a count instead of thousands.
type httpErrors struct {
	log interface{ Warn(string, ...any) }
}

func (h httpErrors) Write(p []byte) (int, error) {
	kind, detail := splitHTTPError(strings.TrimSpace(string(p)))
	h.log.Warn(kind, "detail", detail)
	return len(p), nil
}

// splitHTTPError splits a net/http error line into its kind, without
// addresses, and the rest: "http: TLS handshake error from 1.2.3.4:5: EOF"
// gives "http: TLS handshake error" and "from 1.2.3.4:5: EOF".
func splitHTTPError(line string) (kind, detail string) {
	rest := strings.TrimPrefix(line, "http: ")
	kind, detail, _ = strings.Cut(rest, ": ")
	if k, from, ok := strings.Cut(kind, " from "); ok {
		kind, detail = k, "from "+from+": "+detail
	}
	return "http: " + kind, detail
}
