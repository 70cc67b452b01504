package apps

import (
	"slices"
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// soketiCols are the columns of soketi's documented table, in its order.
var soketiCols = []string{"id", "key", "secret", "max_connections", "enable_client_messages", "enabled",
	"max_backend_events_per_sec", "max_client_events_per_sec", "max_read_req_per_sec",
	"max_presence_members_per_channel", "max_presence_member_size_in_kb", "max_channel_name_length",
	"max_event_channels_at_once", "max_event_name_length", "max_event_payload_in_kb", "max_event_batch_size",
	"webhooks", "enable_user_authentication"}

func TestDecodeRow(t *testing.T) {
	tests := []struct {
		name    string
		vals    []any
		enabled bool
		err     string
	}{
		// As pgx scans soketi's fixture row: smallint as int64, json as string.
		{"postgres", []any{"app-id", "app-key", "app-secret", int64(200), int64(1), int64(1), int64(-1), int64(-1), int64(-1),
			nil, nil, nil, nil, nil, nil, nil, "[]", int64(0)}, true, ""},
		// As the MySQL text protocol scans it: every value as bytes.
		{"mysql text", []any{[]byte("app-id"), []byte("app-key"), []byte("s"), []byte("200"), []byte("1"), []byte("0"),
			[]byte("-1"), []byte("-1"), []byte("-1"), nil, []byte("2"), nil, nil, nil, nil, nil, []byte(`[{"url":"http://x","event_types":["member_added"]}]`), []byte("1")}, false, ""},
		{"bad webhooks", []any{"a", "k", "s", int64(1), int64(0), int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "{oops", int64(0)},
			false, "column webhooks: not a JSON array"},
		{"webhook event type unknown", []any{"a", "k", "s", int64(1), int64(0), int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
			`[{"url":"http://x","event_types":["channel_gone"]}]`, int64(0)}, false, `config: webhooks[0].event_types: "channel_gone" is not one of`},
		{"negative limit", []any{"a", "k", "s", int64(-3), int64(0), int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, int64(0)},
			false, "column max_connections: must be -1"},
		{"no secret", []any{"a", "k", "", int64(1), int64(0), int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, int64(0)},
			false, "config: secret: must not be empty"},
		{"bad flag", []any{"a", "k", "s", int64(1), []byte("yes"), int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, int64(0)},
			false, `column enable_client_messages: want 0 or 1, got "yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := decodeRow(soketiCols, tt.vals)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if a.IsEnabled() != tt.enabled {
				t.Errorf("enabled = %v, want %v", a.IsEnabled(), tt.enabled)
			}
		})
	}
}

// FuzzDecodeRow feeds the decoder rows as the drivers scan them, seeded
// with soketi's fixture row. A row that decodes without error must be a
// valid app; one with an error must come back switched off.
func FuzzDecodeRow(f *testing.F) {
	f.Add("app-id", "app-key", "app-secret", int64(200), []byte("1"), "1", "-1", "2", "[]")
	f.Add("1", "k", "", int64(-1), []byte("0"), "0", "", "0.5", `[{"url":"http://x","event_types":["channel_occupied"]}]`)
	f.Add("a b", "k", "s", int64(-7), []byte("true"), "f", "NaN", "1e9", "{")
	// soketi's documented entries, with and without its filter.
	f.Add("app-id", "app-key", "app-secret", int64(-1), []byte("1"), "1", "", "", `[{"url":"https://example.com/hooks","event_types":["channel_occupied","channel_vacated","member_added","member_removed","client_event"]}]`)
	f.Add("app-id", "app-key", "app-secret", int64(-1), []byte("1"), "1", "", "", `[{"url":"http://x","event_types":["channel_occupied"],"filter":{"channel_name_starts_with":"beta-"}}]`)
	f.Add("app-id", "app-key", "app-secret", int64(-1), []byte("1"), "1", "", "", `[{"url":"ftp://x","event_types":[]},{"url":"http://x","event_types":null}]`)
	f.Fuzz(func(t *testing.T, id, key, secret string, maxConn int64, clientMsgs []byte, enabled, members, sizeKB, webhooks string) {
		vals := []any{id, []byte(key), secret, maxConn, clientMsgs, enabled, int64(-1), nil, []byte(members),
			[]byte(members), sizeKB, nil, nil, nil, nil, nil, webhooks, int64(0)}
		a, err := decodeRow(soketiCols, vals)
		if err != nil {
			if a.IsEnabled() {
				t.Fatalf("malformed row (%v) decoded enabled", err)
			}
			return
		}
		if a.ID != id || a.Key != key || a.Secret != secret || a.MaxPresenceUserInfo <= 0 || a.MaxPresenceMembers <= 0 || a.MaxConnections < 0 {
			t.Fatalf("valid row decoded as %+v", a)
		}
		for _, h := range a.Webhooks {
			if (!strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://")) || len(h.EventTypes) == 0 {
				t.Fatalf("valid row has webhook %+v", h)
			}
			for _, e := range h.EventTypes {
				if !slices.Contains(config.WebhookEventTypes, e) {
					t.Fatalf("valid row has webhook event type %q", e)
				}
			}
		}
	})
}

// TestWebhooksColumn reads soketi's webhooks column into the file's webhook
// list, refusing with the field's name what roost cannot run as written.
func TestWebhooksColumn(t *testing.T) {
	tests := []struct {
		name, column string
		want         []config.Webhook
		err          string
	}{
		{"null", "", nil, ""},
		{"empty", "[]", nil, ""},
		{"soketi's shape", `[{"url":"https://b.example/h","event_types":["channel_occupied","member_added"]},{"url":"http://c.example","event_types":["client_event"]}]`,
			[]config.Webhook{{URL: "https://b.example/h", EventTypes: []string{"channel_occupied", "member_added"}},
				{URL: "http://c.example", EventTypes: []string{"client_event"}}}, ""},
		{"no event types: soketi sends nothing", `[{"url":"http://b.example","event_types":[]}]`, nil, ""},
		{"not an array", `{"url":"http://b.example"}`, nil, "not a JSON array"},
		{"trailing data", `[] []`, nil, "not a JSON array"},
		{"unknown key", `[{"url":"http://b.example","event_types":[],"retries":3}]`, nil, "not a JSON array"},
		{"headers", `[{"url":"http://b.example","event_types":["cache_miss"],"headers":{"X":"y"}}]`, nil, "[0].headers: not supported"},
		{"filter", `[{"url":"http://b.example","event_types":["cache_miss"],"filter":{"channel_name_ends_with":"-x"}}]`, nil, "[0].filter: not supported"},
		{"lambda", `[{"lambda_function":"f","event_types":["cache_miss"]}]`, nil, "[0].lambda_function: not supported"},
		{"no url", `[{"event_types":["cache_miss"]}]`, nil, "[0].url: missing"},
		{"no event types", `[{"url":"http://b.example"}]`, nil, "[0].event_types: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseWebhooks(tt.column)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if !slices.EqualFunc(got, tt.want, func(a, b config.Webhook) bool {
				return a.URL == b.URL && slices.Equal(a.EventTypes, b.EventTypes)
			}) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestBadWebhooksColumnRefusesTheApp: a webhook roost would refuse in the
// file (a URL that is not http(s), an unknown event type) switches the app
// off, with an error naming the field, and runs none of its webhooks.
func TestBadWebhooksColumnRefusesTheApp(t *testing.T) {
	for column, want := range map[string]string{
		`[{"url":"ftp://b.example","event_types":["cache_miss"]}]`:             `config: webhooks[0].url: "ftp://b.example" is not an http:// or https:// URL`,
		`[{"url":"http://b.example","event_types":["cache_miss","nope"]}]`:     `config: webhooks[0].event_types: "nope" is not one of`,
		`[{"url":"http://b.example","event_types":["cache_miss"],"filter":1}]`: `column webhooks: [0].filter: not supported`,
	} {
		cols := []string{"id", "key", "secret", "webhooks"}
		a, err := decodeRow(cols, []any{"shop", "shop-key", "s", column})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", column, err, want)
		}
		if a.IsEnabled() || len(a.Webhooks) != 0 || a.ID != "shop" {
			t.Errorf("%s: refused row decoded as %+v; want app shop switched off, without webhooks", column, a)
		}
	}
}
