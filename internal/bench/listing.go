package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/auth"
)

// ListingOptions configures Listing.
type ListingOptions struct {
	Common
	// Channels is how many channels the server holds, each with one
	// subscriber. Zero value means 10,000.
	Channels int
	// PerConnection is how many of them each connection subscribes to
	// (at most the server's limits.max_subscriptions_per_connection). Zero
	// value means 100.
	PerConnection int
	// Requests is the number of listings to make, Concurrency how many at
	// a time. Zero values mean 200 and 10.
	Requests    int
	Concurrency int
	// Query is the listing's query, less the signature
	// ("filter_by_prefix=bench-w0&info=subscription_count"). Zero value
	// means none: every channel.
	Query string
	// Baseline is the canary's window before listing. Zero value means
	// 10 s.
	Baseline time.Duration
	// Canaries is how many reading connections the canary has. Zero value
	// means 4.
	Canaries int
}

func (o *ListingOptions) defaults() {
	o.Channels = cmpOr(o.Channels, 10000)
	o.PerConnection = cmpOr(o.PerConnection, 100)
	o.Requests = cmpOr(o.Requests, 200)
	o.Concurrency = cmpOr(o.Concurrency, 10)
	o.Baseline = cmpOr(o.Baseline, 10*time.Second)
	o.Canaries = cmpOr(o.Canaries, 4)
}

// ListingResult is what signed channel listings did to a server's
// deliveries.
type ListingResult struct {
	Target      Target `json:"target"`
	Transport   string `json:"transport"`
	Channels    int    `json:"channels"`
	Query       string `json:"query"`
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	// Answered counts 200s; Errors the rest, LastError the last of them.
	Answered  int64   `json:"answered"`
	Errors    int64   `json:"errors"`
	LastError string  `json:"last_error,omitempty"`
	Bytes     float64 `json:"bytes_per_listing"`
	Seconds   float64 `json:"seconds"`
	// Listing is how long one listing took, request to last byte.
	Listing Latency `json:"listing"`
	// ServerCores is the server's CPU while listing.
	ServerCores float64 `json:"server_cores"`
	// Canary latency before listing and while listing.
	CanaryIdle Latency `json:"canary_idle"`
	CanaryLoad Latency `json:"canary_load"`
}

// Listing subscribes connections to many channels, then makes signed
// GET /apps/{id}/channels requests, a few at a time, while a canary
// measures delivery latency on a channel of its own.
func Listing(ctx context.Context, o ListingOptions) (*ListingResult, error) {
	o.defaults()
	t, f, done, err := o.open(ctx, o.fleet)
	if err != nil {
		return nil, err
	}
	defer done()
	pr := NewProgress(o.Progress)
	defer pr.Done()
	if err := ramp(ctx, f, pr, o.conns(), 500); err != nil {
		return nil, err
	}
	cy, err := startCanary(ctx, &o.Common, t, o.Canaries)
	if err != nil {
		return nil, err
	}
	defer cy.stop()
	return runListing(ctx, &o, t, cy, pr)
}

// conns is how many connections hold the channels.
func (o *ListingOptions) conns() int { return (o.Channels + o.PerConnection - 1) / o.PerConnection }

// fleet is the connections that hold the channels of t.
func (o *ListingOptions) fleet(t Target) FleetConfig {
	cfg := o.fleetBase(t)
	cfg.Workers, cfg.Channels = WorkersFor(o.conns()), o.PerConnection
	return cfg
}

func runListing(ctx context.Context, o *ListingOptions, t Target, cy *canary, pr *Progress) (*ListingResult, error) {
	r := &ListingResult{Target: t, Channels: o.Channels, Query: o.Query, Requests: o.Requests, Concurrency: o.Concurrency}
	p := NewProbe(t)
	pr.Printf("canary baseline, %s", o.Baseline)
	if _, err := cy.window(ctx); err != nil {
		return nil, err
	}
	if err := sleep(ctx, o.Baseline); err != nil {
		return nil, err
	}
	var err error
	if r.CanaryIdle, err = cy.window(ctx); err != nil {
		return nil, err
	}
	a, err := p.Sample(ctx)
	if err != nil {
		return nil, err
	}
	l := newLister(t, o.Query, o.Concurrency)
	start := time.Now()
	l.run(ctx, o.Requests, o.Concurrency, pr)
	r.Seconds = time.Since(start).Seconds()
	b, err := p.Sample(ctx)
	if err != nil {
		return nil, err
	}
	if r.CanaryLoad, err = cy.window(ctx); err != nil {
		return nil, err
	}
	r.Transport, r.ServerCores = b.Transport, cpuRate(a, b)
	l.fill(r)
	return r, nil
}

// lister makes signed channel listings (Pusher HTTP API reference, "GET
// channels"), as a server SDK would.
type lister struct {
	target Target
	query  url.Values
	client *http.Client

	answered, bytes atomic.Int64
	failures
	mu   sync.Mutex // guards took
	took Histogram
}

func newLister(t Target, query string, conns int) *lister {
	q, _ := url.ParseQuery(query)
	tr := t.httpTransport()
	tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = conns, conns
	return &lister{target: t, query: q, client: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// run makes n listings from conc goroutines.
func (l *lister) run(ctx context.Context, n, conc int, pr *Progress) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				l.list(ctx)
				pr.Printf("listing: %d answered, %d errors", l.answered.Load(), l.errs.Load())
			}
		})
	}
	wg.Wait()
}

// list makes one listing and reads all of it.
func (l *lister) list(ctx context.Context) {
	path := "/apps/" + l.target.AppID + "/channels"
	q := auth.SignRequest(http.MethodGet, path, l.query, nil, l.target.Key, l.target.Secret, time.Now())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.target.URL+path+"?"+q.Encode(), nil)
	if err != nil {
		l.fail(err)
		return
	}
	start := time.Now()
	resp, err := l.client.Do(req)
	if err != nil {
		l.fail(err)
		return
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("listing: %s", resp.Status)
	}
	if err != nil {
		l.fail(err)
		return
	}
	l.mu.Lock()
	l.took.Record(int64(time.Since(start)))
	l.mu.Unlock()
	l.answered.Add(1)
	l.bytes.Add(n)
}

// fill copies the lister's counts into r.
func (l *lister) fill(r *ListingResult) {
	r.Answered, r.Errors, r.LastError = l.answered.Load(), l.errs.Load(), l.lastError()
	if r.Answered > 0 {
		r.Bytes = float64(l.bytes.Load()) / float64(r.Answered)
	}
	r.Listing = latency(&l.took)
}

// Table renders the result for people.
func (r *ListingResult) Table() string {
	return table([][2]string{
		{"server", fmt.Sprintf("%s (transport %s, pid %d)", r.Target.URL, r.Transport, r.Target.PID)},
		{"channels", fmt.Sprintf("%d, one subscriber each", r.Channels)},
		{"listings", fmt.Sprintf("%d of GET /channels?%s, %d at a time, in %.1f s: %d answered (%.0f KB each), %d errors %s",
			r.Requests, r.Query, r.Concurrency, r.Seconds, r.Answered, r.Bytes/1024, r.Errors, r.LastError)},
		{"one listing", r.Listing.String()},
		{"server CPU listing", fmt.Sprintf("%.2f cores", r.ServerCores)},
		{"canary before", r.CanaryIdle.String()},
		{"canary listing", r.CanaryLoad.String()},
	})
}
