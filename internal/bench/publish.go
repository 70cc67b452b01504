package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostproject/roost/internal/auth"
)

// publisher triggers bench events through the signed HTTP API (Pusher
// docs, "HTTP API reference": POST /apps/{app_id}/events), as a server SDK
// would.
type publisher struct {
	target  Target
	channel string
	pick    func() string // when set, names each event's channel instead of channel
	client  *http.Client
	sent    atomic.Int64
	failures
	pad     string // follows the timestamp in each event's data (padding)
	answers answers
}

func newPublisher(t Target, channel string, workers int) *publisher {
	tr := t.httpTransport()
	tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = workers, workers
	return &publisher{target: t, channel: channel, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// run publishes rate events per second for d from workers goroutines; an
// event whose turn finds every worker busy is skipped and counted as an
// error.
func (p *publisher) run(ctx context.Context, rate float64, d time.Duration, workers int) {
	jobs := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range jobs {
				p.publish(ctx)
			}
		})
	}
	interval := time.Duration(float64(time.Second) / rate)
	t := time.NewTicker(interval)
	end := time.After(d)
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end:
			break loop
		case <-t.C:
			select {
			case jobs <- struct{}{}:
			default:
				p.fail(fmt.Errorf("publisher behind schedule: event skipped"))
			}
		}
	}
	t.Stop()
	close(jobs)
	wg.Wait()
}

// publish sends one event whose data is the current time in nanoseconds,
// then p.pad.
func (p *publisher) publish(ctx context.Context) {
	path := "/apps/" + p.target.AppID + "/events"
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	channel := p.channel
	if p.pick != nil {
		channel = p.pick()
	}
	body := []byte(`{"name":"` + BenchEvent + `","channel":"` + channel + `","data":"` + stamp + p.pad + `"}`)
	q := auth.SignRequest(http.MethodPost, path, nil, body, p.target.Key, p.target.Secret, time.Now())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.target.URL+path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		p.fail(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		p.fail(err)
		return
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	resp.Body.Close()
	p.answers.record(resp.StatusCode, time.Since(start))
	if resp.StatusCode != http.StatusOK {
		p.fail(fmt.Errorf("publish: %s %s", resp.Status, msg))
		return
	}
	p.sent.Add(1)
}

// padding returns text to follow an event's timestamp so that its data is
// about n bytes: a space and a JSON list of records, its quotes escaped for
// the JSON string the data travels in (escapes is what that adds). Empty
// for n under 64.
func padding(n int) string {
	if n < 64 {
		return ""
	}
	b := []byte(" [")
	escapes := 0
	for i := 0; 19+len(b)-escapes < n-40; i++ {
		escapes += 12 // the quotes of one record
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{\"id\":%d,\"sku\":\"SKU-%05d\",\"status\":\"shipped\",\"qty\":%d}`, i, 7919*i%100000, i%7+1)
	}
	return string(append(b, ']'))
}

// failures counts what failed and keeps the last error's text.
type failures struct {
	errs    atomic.Int64
	lastErr atomic.Pointer[string]
}

func (f *failures) fail(err error) {
	f.errs.Add(1)
	s := err.Error()
	f.lastErr.Store(&s)
}

// lastError is the text of the last failure, "" when none.
func (f *failures) lastError() string {
	if e := f.lastErr.Load(); e != nil {
		return *e
	}
	return ""
}
