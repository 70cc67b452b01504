package server

import (
	"net/url"
	"strings"
)

// query is the part of url.Values a handshake's checks read.
type query interface {
	Get(key string) string
}

// rawQuery reads a request URL's query as url.Values would, without
// building them when it can: a query with no escape ('%', '+') and no ';'
// (which url.ParseQuery refuses) unescapes to itself, so its values are
// found by scanning it. The struct holds one pointer, so that it fits an
// interface without an allocation.
type rawQuery struct{ u *url.URL }

// requestQuery returns the query of u for admit.
func requestQuery(u *url.URL) query { return rawQuery{u} }

// Get returns the first value of key, as url.Values.Get does.
func (q rawQuery) Get(key string) string {
	raw := q.u.RawQuery
	if strings.ContainsAny(raw, "%+;") {
		return q.u.Query().Get(key)
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if k, v, _ := strings.Cut(pair, "="); k == key && pair != "" {
			return v
		}
	}
	return ""
}
