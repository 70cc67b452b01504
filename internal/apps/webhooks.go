package apps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/roostproject/roost/internal/config"
)

// columnHook is one entry of soketi's webhooks column: a JSON array of
// {"url", "event_types", ...} (soketi's documentation, "App Webhooks").
// soketi's other keys (headers, filter, lambda, lambda_function) are
// decoded only to refuse them by name: roost does not implement them, and
// running the webhook without them would send what the app did not ask
// for.
type columnHook struct {
	URL            *string         `json:"url"`
	EventTypes     *[]string       `json:"event_types"`
	Headers        json.RawMessage `json:"headers"`
	Filter         json.RawMessage `json:"filter"`
	Lambda         json.RawMessage `json:"lambda"`
	LambdaFunction json.RawMessage `json:"lambda_function"`
}

// maxColumnHooks bounds the URLs one row may list.
const maxColumnHooks = 100

// parseWebhooks reads the webhooks column into the configuration file's
// webhook list, which CheckApp then holds to the file's rules (http(s)
// URLs, known event types, no URL twice). NULL and "" are no webhooks. As
// in soketi, event_types is required and an empty list sends nothing, so
// such an entry is left out (in the file, an empty list means all).
func parseWebhooks(v any) ([]config.Webhook, error) {
	s, err := text(v)
	if err != nil || s == "" {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var list []columnHook
	if err := dec.Decode(&list); err != nil || dec.More() {
		return nil, errors.New("not a JSON array of {\"url\", \"event_types\"} objects")
	}
	if len(list) > maxColumnHooks {
		return nil, fmt.Errorf("%d webhooks, at most %d", len(list), maxColumnHooks)
	}
	var out []config.Webhook
	for i, h := range list {
		if err := h.check(); err != nil {
			return nil, fmt.Errorf("[%d].%w", i, err)
		}
		if len(*h.EventTypes) > 0 {
			out = append(out, config.Webhook{URL: *h.URL, EventTypes: slices.Clone(*h.EventTypes)})
		}
	}
	return out, nil
}

// check refuses an entry roost cannot run as soketi would.
func (h *columnHook) check() error {
	for _, k := range []struct {
		name string
		v    json.RawMessage
	}{{"headers", h.Headers}, {"filter", h.Filter}, {"lambda", h.Lambda}, {"lambda_function", h.LambdaFunction}} {
		if len(k.v) > 0 && string(k.v) != "null" {
			return fmt.Errorf("%s: not supported by roost; remove it or the app stays disabled", k.name)
		}
	}
	switch {
	case h.URL == nil:
		return errors.New("url: missing")
	case h.EventTypes == nil:
		return errors.New("event_types: missing (list the events to send)")
	}
	return nil
}

// webhooksColumn is how a's webhooks are written to the column: soketi's
// shape, with the event types spelled out (an empty list would mean none to
// soketi and to roost's reader).
func webhooksColumn(a *config.App) string {
	list := make([]columnOut, len(a.Webhooks))
	for i, h := range a.Webhooks {
		list[i] = columnOut{URL: h.URL, EventTypes: h.EventTypes}
		if len(h.EventTypes) == 0 {
			list[i].EventTypes = config.WebhookEventTypes
		}
	}
	b, _ := json.Marshal(list) // strings only: cannot fail
	return string(b)
}

// columnOut is an entry as roost writes it.
type columnOut struct {
	URL        string   `json:"url"`
	EventTypes []string `json:"event_types"`
}
