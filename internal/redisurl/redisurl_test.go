package redisurl

import (
	"slices"
	"strings"
	"testing"
)

func TestParseForms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want URL
	}{
		{"redis://127.0.0.1:6379/2", URL{Kind: Single}},
		{"rediss://:pw@h:6380", URL{Kind: Single, TLS: true}},
		{"redis+cluster://a:7000,b:7001", URL{Kind: Cluster, Addrs: []string{"a:7000", "b:7001"}}},
		{"rediss+cluster://u:p@a:7000/", URL{Kind: Cluster, TLS: true, Addrs: []string{"a:7000"}, User: "u", Password: "p"}},
		{"redis+sentinel://:pw@s1:26379,s2:26379/mymaster/3?sentinel_password=sp",
			URL{Kind: Sentinel, Addrs: []string{"s1:26379", "s2:26379"}, Password: "pw", Master: "mymaster", DB: 3, SentinelPassword: "sp"}},
		{"redis+sentinel://[::1]:26379/m", URL{Kind: Sentinel, Addrs: []string{"[::1]:26379"}, Master: "m"}},
	} {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.Kind != c.want.Kind || got.TLS != c.want.TLS || !slices.Equal(got.Addrs, c.want.Addrs) ||
			got.User != c.want.User || got.Password != c.want.Password || got.Master != c.want.Master ||
			got.DB != c.want.DB || got.SentinelPassword != c.want.SentinelPassword {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseRefusesWithReason(t *testing.T) {
	for in, reason := range map[string]string{
		"http://h:1":                              "want redis://",
		"redis+cluster://":                        "want redis://",
		"redis+cluster://a:7000,b":                "host:port",
		"redis+cluster://a:7000,:7001":            "host:port",
		"redis+cluster://a:70000":                 "port",
		"redis+cluster://a:7000/3":                "only database 0",
		"redis+sentinel://s:26379":                "no master name",
		"redis+sentinel://s:26379/m/x":            "database must be a number",
		"redis+sentinel://s:26379/m?x=1":          "unknown parameter",
		"redis+cluster://a:1?sentinel_password=p": "unknown parameter",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: err %v, want one saying %q", in, err, reason)
		}
	}
}

func TestErrorsNeverQuoteThePassword(t *testing.T) {
	for _, in := range []string{"redis+cluster://u:secret@a:x", "redis+sentinel://:secret@s:1", "redis+sentinel://:secret@s:1/m/x"} {
		if _, err := Parse(in); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379/0", "rediss://user:pw@redis.internal:6380",
		"redis+cluster://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000",
		"rediss+cluster://default:pw@c1:6379", "redis+sentinel://s1:26379,s2:26379/mymaster/1",
		"redis+sentinel://:pw@s1:26379/mymaster?sentinel_password=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		if u.Kind != Single && len(u.Addrs) == 0 {
			t.Fatalf("%q: no addresses", s)
		}
		if u.Kind == Sentinel && u.Master == "" {
			t.Fatalf("%q: no master", s)
		}
	})
}
