package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Fit is a least-squares straight line y = Intercept + Slope*x.
type Fit struct {
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	// R2 is the coefficient of determination: 1 is a perfect line. It is 1
	// for two points and NaN (encoded as 0) when y does not vary.
	R2 float64 `json:"r2"`
	N  int     `json:"n"`
}

// FitLine fits y = a + b*x by ordinary least squares. It needs at least two
// distinct x values.
func FitLine(x, y []float64) (Fit, error) {
	if len(x) != len(y) || len(x) < 2 {
		return Fit{}, fmt.Errorf("bench: fit needs two or more (x, y) pairs, got %d and %d", len(x), len(y))
	}
	mx, my := mean(x), mean(y)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Fit{}, fmt.Errorf("bench: fit needs two distinct x values")
	}
	f := Fit{Slope: sxy / sxx, N: len(x)}
	f.Intercept = my - f.Slope*mx
	if syy > 0 {
		f.R2 = sxy * sxy / (sxx * syy)
	}
	return f, nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Percentile returns the p-th percentile (0 < p <= 100) of samples by the
// nearest-rank method: the smallest value with at least p% of the samples at
// or below it. It sorts a copy; an empty input gives 0.
func Percentile(samples []float64, p float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// histSub is the number of buckets per power of two above histSub: values
// are kept to within 1/histSub (0.8%) of their size.
const histSub = 128

// Histogram counts non-negative integer samples (latencies in nanoseconds)
// in log-linear buckets: exact below 128, then 128 buckets per power of two.
// Histograms from several workers merge by adding counts. The zero value is
// empty and ready to use; it is not safe for concurrent use.
type Histogram struct {
	counts []uint64
	total  uint64
	max    int64
}

// histIndex returns the bucket of v.
func histIndex(v int64) int {
	if v < histSub {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - 8 // v>>shift is in [128, 256)
	return histSub + shift*histSub + int(v>>shift) - histSub
}

// histValue returns the middle of bucket i, the value reported for it.
func histValue(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	shift := (i - histSub) / histSub
	base := int64((i-histSub)%histSub+histSub) << shift
	return base + (int64(1)<<shift)/2
}

// Record counts one sample; a negative sample counts as 0.
func (h *Histogram) Record(v int64) {
	i := histIndex(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]uint64, i+1-len(h.counts))...)
	}
	h.counts[i]++
	h.total++
	h.max = max(h.max, v)
}

// Count returns the number of samples.
func (h *Histogram) Count() uint64 { return h.total }

// Max returns the largest sample.
func (h *Histogram) Max() int64 { return h.max }

// Merge adds o's samples to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]uint64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.max = max(h.max, o.max)
}

// Percentile returns the p-th percentile by nearest rank, to within the
// bucket width (0.8%), never above Max; an empty histogram gives 0.
func (h *Histogram) Percentile(p float64) int64 {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p / 100 * float64(h.total)))
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(histValue(i), h.max)
		}
	}
	return h.max
}

// histJSON is the wire form of a Histogram: sparse [bucket, count] pairs.
type histJSON struct {
	Buckets [][2]uint64 `json:"buckets"`
	Max     int64       `json:"max"`
}

// MarshalJSON encodes the non-empty buckets, for worker-to-parent transfer.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	w := histJSON{Buckets: [][2]uint64{}, Max: h.max}
	for i, c := range h.counts {
		if c != 0 {
			w.Buckets = append(w.Buckets, [2]uint64{uint64(i), c})
		}
	}
	return json.Marshal(w)
}

// maxHistBuckets bounds a decoded histogram (values up to 2^62).
const maxHistBuckets = histSub + 56*histSub

// UnmarshalJSON decodes what MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var w histJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*h = Histogram{max: w.Max}
	for _, bc := range w.Buckets {
		if bc[0] >= maxHistBuckets {
			return fmt.Errorf("bench: histogram bucket %d out of range", bc[0])
		}
		i := int(bc[0])
		if i >= len(h.counts) {
			h.counts = append(h.counts, make([]uint64, i+1-len(h.counts))...)
		}
		h.counts[i] += bc[1]
		h.total += bc[1]
	}
	return nil
}
