package admission

import (
	"net/url"
	"testing"
)

// FuzzQuery: Query.Get answers as url.Values.Get does, for every
// key the handshake checks, whatever the query.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		"protocol=7&client=js&version=8.6.0&flash=false",
		"protocol=7&protocol=6", "&&protocol&version=", "version=8.4.0-rc%2B1&protocol=7",
		"protocol=7;version=1", "protocol=+7", "=7&protocol=5", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u := &url.URL{RawQuery: raw}
		want := u.Query()
		for _, key := range []string{"protocol", "version", "client", ""} {
			if got := Query(u.RawQuery).Get(key); got != want.Get(key) {
				t.Fatalf("query %q, key %q: got %q, url.Values has %q", raw, key, got, want.Get(key))
			}
		}
	})
}
