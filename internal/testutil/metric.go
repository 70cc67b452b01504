package testutil

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// metricClient reads /metrics; a node that does not answer within its
// timeout counts as not there.
var metricClient = &http.Client{Timeout: 5 * time.Second}

// Metric returns the value of one series of the process's /metrics (its
// name and labels as printed, e.g. `roost_webhook_queue_depth{app="a"}`),
// or -1 when the process does not answer or has no such series.
func (r *Roost) Metric(series string) float64 {
	res, err := metricClient.Get(r.URL + "/metrics")
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return -1
	}
	return v
}
