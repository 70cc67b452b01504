package auth

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The HTTP API example of the Pusher docs ("HTTP API reference"): app 3
// publishes "foo" with {"some":"data"} to project-3.
var (
	docBody = []byte(`{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}`)
	docTime = time.Unix(1353088179, 0)
)

func docQuery() url.Values {
	return url.Values{
		"auth_key":       {docKey},
		"auth_timestamp": {"1353088179"},
		"auth_version":   {"1.0"},
		"body_md5":       {"ec365a775a4cd0599faeb73354201b6f"},
		"auth_signature": {"da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c"},
	}
}

func TestVerifyRequestDocVector(t *testing.T) {
	if err := VerifyRequest("POST", "/apps/3/events", docQuery(), docBody, docSecret, docTime); err != nil {
		t.Fatalf("doc vector refused: %v", err)
	}
	signed := SignRequest("POST", "/apps/3/events", nil, docBody, docKey, docSecret, docTime)
	if got, want := signed.Encode(), mustEncode(docQuery()); got != want {
		t.Fatalf("SignRequest = %s\nwant          %s", got, want)
	}
}

func mustEncode(q url.Values) string { return q.Encode() }

func TestVerifyRequestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(q url.Values)
		body   []byte
		now    time.Time
		status int
		says   string
	}{
		{"repeated parameter", func(q url.Values) { q.Add("auth_key", docKey) }, docBody, docTime, 400, "given 2 times"},
		{"case-folded duplicate", func(q url.Values) { q.Set("AUTH_KEY", docKey) }, docBody, docTime, 400, "case-insensitive"},
		{"no key", func(q url.Values) { q.Del("auth_key") }, docBody, docTime, 401, "Missing auth_key"},
		{"bad version", func(q url.Values) { q.Set("auth_version", "2.0") }, docBody, docTime, 401, "auth_version"},
		{"no timestamp", func(q url.Values) { q.Del("auth_timestamp") }, docBody, docTime, 401, "Missing auth_timestamp"},
		{"timestamp not a number", func(q url.Values) { q.Set("auth_timestamp", "1e9") }, docBody, docTime, 401, "integer"},
		{"clock 601 s ahead", nil, docBody, docTime.Add(601 * time.Second), 401, "server time"},
		{"clock 601 s behind", nil, docBody, docTime.Add(-601 * time.Second), 401, "server time"},
		{"body changed", nil, append([]byte(" "), docBody...), docTime, 401, "body_md5 does not match"},
		{"no body_md5", func(q url.Values) { q.Del("body_md5") }, docBody, docTime, 401, "Missing body_md5"},
		{"no signature", func(q url.Values) { q.Del("auth_signature") }, docBody, docTime, 401, "Missing auth_signature"},
		{"wrong signature", func(q url.Values) { q.Set("auth_signature", strings.Repeat("0", 64)) }, docBody, docTime, 401, "Invalid auth_signature"},
		{"extra unsigned parameter", func(q url.Values) { q.Set("info", "user_count") }, docBody, docTime, 401, "Invalid auth_signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := docQuery()
			if tt.edit != nil {
				tt.edit(q)
			}
			err := VerifyRequest("POST", "/apps/3/events", q, tt.body, docSecret, tt.now)
			var re *RequestError
			if !errors.As(err, &re) || re.Status != tt.status || !strings.Contains(re.Message, tt.says) {
				t.Fatalf("got %v, want %d containing %q", err, tt.status, tt.says)
			}
			if strings.Contains(re.Message, "da454824") {
				t.Fatalf("message reveals the expected signature: %s", re.Message)
			}
		})
	}
}

// TestVerifyQueryNeedsNoBody: the signature, key, version, timestamp and
// the presence of body_md5 are decided from the query alone, so a server can
// refuse before reading the body; only the body's MD5 waits for the body.
func TestVerifyQueryNeedsNoBody(t *testing.T) {
	if err := VerifyQuery("POST", "/apps/3/events", docQuery(), true, docSecret, docTime); err != nil {
		t.Fatalf("doc vector refused before its body: %v", err)
	}
	noMD5 := docQuery()
	noMD5.Del("body_md5")
	if err := VerifyQuery("POST", "/apps/3/events", noMD5, true, docSecret, docTime); err == nil ||
		!strings.Contains(err.Error(), "Missing body_md5") {
		t.Fatalf("a body without body_md5: got %v", err)
	}
	forged := docQuery()
	forged.Set("auth_signature", strings.Repeat("0", 64))
	if err := VerifyQuery("POST", "/apps/3/events", forged, true, docSecret, docTime); err == nil {
		t.Fatal("a forged signature passed without the body")
	}
	if err := CheckBodyMD5(docQuery(), []byte("other")); err == nil {
		t.Fatal("CheckBodyMD5 accepted a body that is not the signed one")
	}
	if err := CheckBodyMD5(docQuery(), docBody); err != nil {
		t.Fatalf("CheckBodyMD5 refused the signed body: %v", err)
	}
}

func TestVerifyRequestWindowEdges(t *testing.T) {
	for _, skew := range []time.Duration{-600 * time.Second, 0, 600 * time.Second} {
		if err := VerifyRequest("POST", "/apps/3/events", docQuery(), docBody, docSecret, docTime.Add(skew)); err != nil {
			t.Errorf("skew %v refused: %v", skew, err)
		}
	}
}

func TestSignedGETWithQuery(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	q := url.Values{"info": {"user_count,subscription_count"}, "filter_by_prefix": {"presence-"}}
	signed := SignRequest("get", "/apps/1/channels", q, nil, "k", "s", now)
	if _, ok := signed["body_md5"]; ok {
		t.Fatal("body_md5 set for an empty body")
	}
	if err := VerifyRequest("GET", "/apps/1/channels", signed, nil, "s", now); err != nil {
		t.Fatalf("refused: %v", err)
	}
	if err := VerifyRequest("GET", "/apps/2/channels", signed, nil, "s", now); err == nil {
		t.Fatal("accepted for another path")
	}
}

func TestStringToSignOrdersByName(t *testing.T) {
	q := url.Values{"a_b": {"1"}, "a": {"z"}, "B": {"2"}, "auth_signature": {"x"}}
	want := "POST\n/p\na=z&a_b=1&b=2"
	if got := StringToSign("post", "/p", q); got != want {
		t.Fatalf("StringToSign = %q, want %q", got, want)
	}
}

func TestCheckKey(t *testing.T) {
	if err := CheckKey(docQuery(), docKey); err != nil {
		t.Fatalf("refused own key: %v", err)
	}
	if err := CheckKey(docQuery(), otherAppKey); err == nil {
		t.Fatal("accepted another app's key")
	}
	if err := CheckKey(url.Values{}, docKey); err == nil {
		t.Fatal("accepted a missing key")
	}
}

// FuzzVerifyRequest feeds arbitrary query strings and bodies: VerifyRequest
// must never panic, must refuse whatever VerifyQuery refuses before the body
// (so checking the query first never lets through what the whole check
// would refuse), and a request signed by SignRequest must verify unless its
// parameters collide (a 400).
func FuzzVerifyRequest(f *testing.F) {
	f.Add(mustEncode(docQuery()), string(docBody))
	f.Add("info=user_count&filter_by_prefix=presence-", "")
	f.Add("a=1&a=2&A=3", "x")
	f.Add("auth_key=%zz&;;=&&", "{}")
	f.Add("AUTH_KEY=x&body_md5=00", "")
	f.Fuzz(func(t *testing.T, rawQuery, body string) {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		whole := VerifyRequest("POST", "/apps/1/events", q, []byte(body), "secret", docTime)
		early := VerifyQuery("POST", "/apps/1/events", q, body != "", "secret", docTime)
		if early != nil && whole == nil {
			t.Fatalf("VerifyQuery refused what VerifyRequest accepts: %v\nquery %q", early, rawQuery)
		}
		if early == nil && whole != nil && CheckBodyMD5(q, []byte(body)) == nil {
			t.Fatalf("VerifyRequest refused with neither part refusing: %v", whole)
		}
		signed := SignRequest("POST", "/apps/1/events", q, []byte(body), "key", "secret", docTime)
		err = VerifyRequest("POST", "/apps/1/events", signed, []byte(body), "secret", docTime)
		var re *RequestError
		if err != nil && (!errors.As(err, &re) || re.Status != 400) {
			t.Fatalf("signed request refused: %v\nquery %q", err, rawQuery)
		}
	})
}

func BenchmarkVerifyRequest(b *testing.B) {
	q := docQuery()
	b.ReportAllocs()
	for b.Loop() {
		if err := VerifyRequest("POST", "/apps/3/events", q, docBody, docSecret, docTime); err != nil {
			b.Fatal(err)
		}
	}
}
