package fallback

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// Real bodies pusher-js 8.6.0 sends with xhr_send.
var sendSeeds = []string{
	`[]`,
	`["{\"event\":\"pusher:subscribe\",\"data\":{\"auth\":\"\",\"channel\":\"news\"}}"]`,
	`["{\"event\":\"pusher:subscribe\",\"data\":{\"auth\":\"app-key:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4\",\"channel\":\"private-foobar\"}}"]`,
	`["{\"event\":\"client-typing\",\"data\":{\"who\":\"\u00e9\\n\"},\"channel\":\"private-chat\"}"]`,
	`["{\"event\":\"pusher:signin\",\"data\":{\"auth\":\"k:s\",\"user_data\":\"{\\\"id\\\":\\\"u1\\\"}\"}}"]`,
}

// FuzzParseSend checks that any body is decoded or refused without
// panicking, that nothing accepted exceeds the message cap, and that what
// is accepted survives the server's own encoding unchanged.
func FuzzParseSend(f *testing.F) {
	for _, s := range sendSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`["a",null]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, err := parseSend(body, 1000)
		if err != nil {
			return
		}
		for _, m := range msgs {
			if len(m) > 1000 {
				t.Fatalf("accepted a %d-byte message over the cap", len(m))
			}
			var back string
			if err := json.Unmarshal(appendQuoted(nil, m), &back); err != nil || back != string(m) {
				t.Fatalf("re-encoded %q came back as %q (%v)", m, back, err)
			}
		}
	})
}

// FuzzAppendQuoted checks that the framing's string encoding is JSON that
// encoding/json reads back as the input (invalid UTF-8 as U+FFFD), and
// never holds a line end, which would split pusher-js's line.
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range sendSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("\u2028\u2029\x00\x7f\xff\n\r\t\"\\"))
	f.Fuzz(func(t *testing.T, s []byte) {
		out := appendQuoted(nil, s)
		if bytes.ContainsAny(out, "\n\r") || bytes.Contains(out, []byte("\u2028")) || bytes.Contains(out, []byte("\u2029")) {
			t.Fatalf("%q encodes with a line end: %q", s, out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q encodes to invalid JSON %q: %v", s, out, err)
		}
		if want := strings.ToValidUTF8(string(s), "\uFFFD"); utf8.Valid(s) && back != want {
			t.Fatalf("%q came back as %q", s, back)
		}
	})
}

// FuzzSessionPath serves arbitrary paths and bodies: nothing panics, a
// path pusher-js does not make is 404 and never opens a session, and a bad
// xhr_send body leaves the session serving.
func FuzzSessionPath(f *testing.F) {
	f.Add("/pusher/app/app-key/12/abcdefgh/xhr_send", sendSeeds[1])
	f.Add("/pusher/app/app-key/999/0123456v/xhr", "")
	f.Add("/pusher/app/app-key/1000/abcdefgh/xhr_streaming", "")
	f.Add("/pusher/app/app-key/12/abcdefgh/xhr_send", "[")
	f.Add("/pusher/app/app-key/12/../xhr", "")
	r := newRig(f, nil)
	f.Fuzz(func(t *testing.T, path, body string) {
		if r.lookup("app-key/12/abcdefgh") == nil {
			r.post(t, sessionPath("abcdefgh", "xhr"), "") // a valid message may end it (a failed sign-in)
		}
		if strings.HasSuffix(path, "/xhr_streaming") {
			return // a stream is held until it ends; the rig's recorder cannot end it
		}
		req, err := http.NewRequest(http.MethodPost, "http://roost"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		before := r.Len()
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s: %d", path, w.Code)
		}
		if w.Code == http.StatusNotFound && r.Len() > before {
			t.Fatalf("%s answered 404 and opened a session", path)
		}
		if w.Code == http.StatusBadRequest && r.lookup("app-key/12/abcdefgh") == nil {
			t.Fatalf("%s with %q was refused and ended the session", path, body)
		}
	})
}
