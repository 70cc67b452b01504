package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"
)

// The webhook event types (Pusher docs, "Webhooks"), as apps[].webhooks[].event_types
// names them and as each event's "name" says.
const (
	WebhookChannelOccupied   = "channel_occupied"
	WebhookChannelVacated    = "channel_vacated"
	WebhookMemberAdded       = "member_added"
	WebhookMemberRemoved     = "member_removed"
	WebhookClientEvent       = "client_event"
	WebhookCacheMiss         = "cache_miss"
	WebhookSubscriptionCount = "subscription_count"
)

// WebhookEventTypes lists every webhook event type.
var WebhookEventTypes = []string{
	WebhookChannelOccupied, WebhookChannelVacated, WebhookMemberAdded, WebhookMemberRemoved,
	WebhookClientEvent, WebhookCacheMiss, WebhookSubscriptionCount,
}

// Webhook is one URL an app's events are POSTed to (Pusher docs,
// "Webhooks"), in the shape soketi uses, so app definitions carry over.
type Webhook struct {
	// URL receives the signed POSTs: http:// or https://. Redirects are not
	// followed. Zero value is invalid.
	URL string `yaml:"url" json:"url" env:"ROOST_APP_WEBHOOK_URL" default:"" example:"https://backend.example/pusher/webhooks" check:"http_url,unique" help:"http:// or https:// URL the app's webhooks are POSTed to, signed with the app secret"`
	// EventTypes are the events sent to URL. Zero value (empty) means all.
	EventTypes []string `yaml:"event_types" json:"event_types,omitempty" env:"ROOST_APP_WEBHOOK_EVENT_TYPES" default:"" example:"channel_occupied,channel_vacated" check:"webhook_events" help:"events sent to url: channel_occupied, channel_vacated, member_added, member_removed, client_event, cache_miss, subscription_count; empty means all"`
}

// ShownURL is a webhook URL as logs and pages may show it: scheme, host
// and path, without user, password, query or fragment, any of which may
// hold a credential.
func ShownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// Wants reports whether the webhook takes events of type name.
func (w *Webhook) Wants(name string) bool {
	return len(w.EventTypes) == 0 || slices.Contains(w.EventTypes, name)
}

// Webhooks tunes how every app's webhooks are timed, batched and retried.
type Webhooks struct {
	// Delay holds channel_vacated and member_removed back; the channel
	// occupied again, or the user back, within it cancels both events, so a
	// page reload sends nothing (Pusher docs, "Webhooks": about 3 s).
	Delay time.Duration `yaml:"delay" env:"ROOST_WEBHOOK_DELAY" default:"3s" check:"positive" help:"channel_vacated and member_removed wait this long and are cancelled if the channel or user comes back meanwhile"`
	// BatchWait is how long the first event of a request waits for others
	// to the same URL.
	BatchWait time.Duration `yaml:"batch_wait" env:"ROOST_WEBHOOK_BATCH_WAIT" default:"250ms" check:"positive" help:"an event waits up to this long for others to share its request"`
	// BatchMax is the most events in one request.
	BatchMax int `yaml:"batch_max" env:"ROOST_WEBHOOK_BATCH_MAX" default:"50" check:"positive" help:"most events in one request"`
	// Timeout bounds one request; a request that takes longer is retried.
	Timeout time.Duration `yaml:"timeout" env:"ROOST_WEBHOOK_TIMEOUT" default:"5s" check:"positive" help:"a request unanswered this long counts as failed and is retried"`
	// RetryFor is how long a failing request is retried, with exponential
	// backoff and jitter, before its events are dropped and counted.
	RetryFor time.Duration `yaml:"retry_for" env:"ROOST_WEBHOOK_RETRY_FOR" default:"5m" check:"positive" help:"a failing request is retried with exponential backoff for this long, then dropped"`
	// QueueBytes bounds each app's queued events, in bytes of JSON; when
	// full, the oldest are dropped and counted.
	QueueBytes int `yaml:"queue_bytes" env:"ROOST_WEBHOOK_QUEUE_BYTES" default:"8MiB" unit:"bytes" check:"positive" help:"queued webhook events per app; when full the oldest are dropped and counted"`
	// Outbox keeps, in a cluster, every event in the cluster's store until
	// it is delivered, so that the node that reaps a dead node delivers
	// what it had queued or held (docs/webhooks.md, "Durable on a
	// cluster"). It costs a store write per event and URL. No effect on a
	// single node.
	Outbox *bool `yaml:"outbox" env:"ROOST_WEBHOOK_OUTBOX" default:"true" help:"in a cluster, keep each webhook event in the cluster's store until it is delivered, so that another node delivers a dead node's events"`
}

// OutboxOn reports whether webhooks.outbox is on (its default).
func (w Webhooks) OutboxOn() bool { return w.Outbox == nil || *w.Outbox }

// httpURL checks a webhook URL is an absolute http:// or https:// URL with a
// host.
func httpURL(v any) error {
	s := v.(string)
	if s == "" {
		return errors.New("must not be empty")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", s)
	}
	return nil
}

// webhookEvents checks every item of a list is a webhook event type.
func webhookEvents(v any) error {
	for _, name := range v.([]string) {
		if !slices.Contains(WebhookEventTypes, name) {
			return fmt.Errorf("%q is not one of %q", name, WebhookEventTypes)
		}
	}
	return nil
}
