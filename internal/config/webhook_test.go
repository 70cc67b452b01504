package config

import (
	"reflect"
	"strings"
	"testing"
)

// hookApp is an app whose webhooks are the YAML lines that follow.
const hookApp = "apps:\n  - id: a\n    key: k\n    secret: s\n    webhooks:\n"

func TestWebhookErrorsNameTheField(t *testing.T) {
	tests := []struct {
		yaml string
		env  []string
		want string
	}{
		{hookApp + "      - url: ftp://h/x\n", nil, `config: apps[0].webhooks[0].url (line 6): "ftp://h/x" is not an http:// or https:// URL`},
		{hookApp + "      - url: /relative\n", nil, `config: apps[0].webhooks[0].url (line 6): "/relative" is not an http`},
		{hookApp + "      - url: https://h\n      - url: https://h\n", nil, `config: apps[0].webhooks[1].url (line 7): "https://h" is also apps[0].webhooks[0].url`},
		{hookApp + "      - event_types: [member_added]\n", nil, "config: apps[0].webhooks[0].url (line 6): must not be empty"},
		{hookApp + "      - url: http://h\n        event_types: [member_added, channel_gone]\n", nil,
			`config: apps[0].webhooks[0].event_types (line 7): "channel_gone" is not one of ["channel_occupied"`},
		{"", []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s", "ROOST_APP_WEBHOOK_URL=mailto:x@y"},
			`config: apps[0].webhooks[0].url (ROOST_APP_WEBHOOK_URL): "mailto:x@y" is not an http`},
		{"", []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s", "ROOST_APP_WEBHOOK_URL=http://h", "ROOST_APP_WEBHOOK_EVENT_TYPES=occupied"},
			`config: apps[0].webhooks[0].event_types (ROOST_APP_WEBHOOK_EVENT_TYPES): "occupied" is not one of`},
		{"webhooks: {delay: -1s}\n", nil, "config: webhooks.delay (line 1): must be > 0"},
		{"", []string{"ROOST_WEBHOOK_BATCH_MAX=-1"}, "config: webhooks.batch_max (ROOST_WEBHOOK_BATCH_MAX): must be > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), tt.env)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestWebhooksFromEnv(t *testing.T) {
	c := mustParse(t, "", "ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s",
		"ROOST_APP_WEBHOOK_URL=http://127.0.0.1:9/hooks")
	want := []Webhook{{URL: "http://127.0.0.1:9/hooks"}}
	if !reflect.DeepEqual(c.Apps[0].Webhooks, want) {
		t.Fatalf("webhooks = %+v, want %+v", c.Apps[0].Webhooks, want)
	}
	if !c.Apps[0].Webhooks[0].Wants(WebhookCacheMiss) {
		t.Error("a webhook without event_types must want every event")
	}
}

func TestWebhookWants(t *testing.T) {
	w := Webhook{URL: "http://h", EventTypes: []string{WebhookMemberAdded}}
	if !w.Wants(WebhookMemberAdded) || w.Wants(WebhookMemberRemoved) {
		t.Errorf("Wants with event_types %v is wrong", w.EventTypes)
	}
}

func TestPrintConfigShowsWebhooks(t *testing.T) {
	ex := Example()
	for _, s := range []string{"    webhooks:\n", "      - url: https://backend.example/pusher/webhooks\n",
		"        event_types: [channel_occupied, channel_vacated]\n", "\nwebhooks:\n  # ", "  delay: 3s\n"} {
		if !strings.Contains(ex, s) {
			t.Errorf("--print-config lacks %q", s)
		}
	}
}

// FuzzWebhookConfig checks that no url or event_types of a webhook panics,
// and that whatever Parse accepts is an http(s) URL with known event types.
func FuzzWebhookConfig(f *testing.F) {
	f.Add("https://backend.example/pusher/webhooks", "channel_occupied, channel_vacated")
	f.Add("http://127.0.0.1:8080/hooks?x=1", "")
	f.Add("ftp://h", "member_added")
	f.Add("https://user:pass@h/x", "client_event,cache_miss,subscription_count")
	f.Add("//h/x", "member_removed,,")
	f.Fuzz(func(t *testing.T, url, types string) {
		c, err := Parse(nil, []string{"ROOST_APP_ID=a", "ROOST_APP_KEY=k", "ROOST_APP_SECRET=s",
			"ROOST_APP_WEBHOOK_URL=" + url, "ROOST_APP_WEBHOOK_EVENT_TYPES=" + types})
		if err != nil {
			return
		}
		for _, w := range c.Apps[0].Webhooks {
			if httpURL(w.URL) != nil || webhookEvents(w.EventTypes) != nil {
				t.Fatalf("accepted %+v", w)
			}
		}
		yaml := hookApp + "      - url: " + yamlScalar(url) + "\n        event_types: [" + yamlScalar(types) + "]\n"
		if c, err := Parse([]byte(yaml), nil); err == nil {
			for _, w := range c.Apps[0].Webhooks {
				if httpURL(w.URL) != nil || webhookEvents(w.EventTypes) != nil {
					t.Fatalf("accepted %+v from %q", w, yaml)
				}
			}
		}
	})
}

func TestShownURLHidesCredentials(t *testing.T) {
	for raw, want := range map[string]string{
		"https://backend.example/pusher/webhooks":                 "https://backend.example/pusher/webhooks",
		"https://user:pw@backend.example/hooks?token=s3cret#frag": "https://backend.example/hooks",
		"http://127.0.0.1:8080/h?sig=abc":                         "http://127.0.0.1:8080/h",
		"http://[::1]:80/%zz":                                     "(unparsable URL)",
	} {
		if got := ShownURL(raw); got != want {
			t.Errorf("ShownURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
