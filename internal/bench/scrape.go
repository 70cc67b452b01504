package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Metrics is one scrape of a Prometheus text exposition: sample value by
// series, where a series is the metric name followed by its labels exactly
// as the server wrote them (`roost_connections{transport="epoll"}`).
type Metrics map[string]float64

// maxExposition bounds what a scrape reads: roost's exposition is a few
// kilobytes; anything past this is not a roost server.
const maxExposition = 4 << 20

// ParseMetrics reads the sample lines of a Prometheus text exposition
// (format 0.0.4): comments and blank lines are skipped, a trailing
// timestamp is ignored, and a malformed line is an error naming it.
func ParseMetrics(r io.Reader) (Metrics, error) {
	m := make(Metrics)
	sc := bufio.NewScanner(io.LimitReader(r, maxExposition))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		series, value, err := parseSample(text)
		if err != nil {
			return nil, fmt.Errorf("bench: metrics line %d: %w", line, err)
		}
		m[series] = value
	}
	return m, sc.Err()
}

// parseSample splits `name{labels} value [timestamp]`. Label values may hold
// spaces and escaped quotes, so the series ends at the '}' that closes the
// label set, found by scanning quoted strings.
func parseSample(line string) (string, float64, error) {
	end := strings.IndexAny(line, "{ \t")
	if end <= 0 {
		return "", 0, fmt.Errorf("no value in %q", line)
	}
	if line[end] == '{' {
		close := labelsEnd(line, end)
		if close < 0 {
			return "", 0, fmt.Errorf("unterminated labels in %q", line)
		}
		end = close + 1
	}
	fields := strings.Fields(line[end:])
	if len(fields) == 0 || len(fields) > 2 {
		return "", 0, fmt.Errorf("want a value and an optional timestamp in %q", line)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", 0, fmt.Errorf("bad value in %q: %w", line, err)
	}
	return line[:end], v, nil
}

// labelsEnd returns the index of the '}' closing the label set that opens
// at line[open], or -1.
func labelsEnd(line string, open int) int {
	quoted := false
	for i := open + 1; i < len(line); i++ {
		switch c := line[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '}':
			return i
		}
	}
	return -1
}

// Sum returns the sum of every series of the metric name (all label sets),
// and whether there was any.
func (m Metrics) Sum(name string) (float64, bool) {
	var sum float64
	found := false
	for series, v := range m {
		if series == name || strings.HasPrefix(series, name+"{") {
			sum += v
			found = true
		}
	}
	return sum, found
}

// Scrape fetches and parses url (a server's /metrics).
func Scrape(ctx context.Context, client *http.Client, url string) (Metrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: scrape %s: %w", url, err)
	}
	// Uncompressed: gzip would add the scrape's own CPU to the figures.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bench: scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bench: scrape %s: %s", url, resp.Status)
	}
	m, err := ParseMetrics(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("bench: scrape %s: %w", url, err)
	}
	return m, nil
}
