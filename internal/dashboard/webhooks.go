package dashboard

import "github.com/roostproject/roost/internal/metrics"

// webhookView is one app's webhook figures as the overview shows them:
// the counters /metrics reports (roost_webhook_*), read from the same
// snapshot, so the page and a scrape never disagree.
type webhookView struct {
	App    string `json:"app"`
	Sent   int64  `json:"sent"`
	Queued int64  `json:"queued"`
	// Outbox is the app's events of this node in the cluster's outbox.
	Outbox int64 `json:"outbox"`
	// OldestSeconds is the age of the oldest event not yet delivered or
	// dropped; 0 when there is none.
	OldestSeconds float64 `json:"oldest_s"`
	Failed        int64   `json:"failed"`
	Retried       int64   `json:"retried"`
	// Dropped counts the events given up on, by reason.
	Dropped map[string]int64 `json:"dropped"`
	// Adopted counts the events taken over from dead nodes.
	Adopted int64 `json:"adopted"`
}

// webhookViews returns the webhook figures of a snapshot, one per app with
// webhooks, in the snapshot's order.
func webhookViews(snap *metrics.Snapshot) []webhookView {
	out := make([]webhookView, 0, len(snap.Webhooks))
	for _, w := range snap.Webhooks {
		out = append(out, webhookView{App: w.App, Sent: w.Sent, Queued: w.Queued, Outbox: w.Outboxed,
			OldestSeconds: w.OldestSeconds, Failed: w.FailedAttempts, Retried: w.Retried,
			Dropped: w.Dropped, Adopted: w.Adopted})
	}
	return out
}
