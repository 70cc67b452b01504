package admission

import (
	"net/url"
	"strings"
)

// Query is a request URL's raw query, read as url.Values would read it
// without building them when it can: a query with no escape ('%', '+') and
// no ';' (which url.ParseQuery refuses) unescapes to itself, so its values
// are found by scanning it.
type Query string

// Get returns the first value of key, as url.Values.Get does.
func (q Query) Get(key string) string {
	raw := string(q)
	if strings.ContainsAny(raw, "%+;") {
		v, _ := url.ParseQuery(raw)
		return v.Get(key)
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
