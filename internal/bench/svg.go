package bench

import (
	"fmt"
	"math"
	"strings"
)

// chart geometry, in SVG user units.
const (
	panelW, panelH = 420.0, 300.0
	padL, padR     = 64.0, 16.0
	padT, padB     = 36.0, 44.0
)

// series is one line of the chart.
type series struct {
	name   string
	color  string
	dashed bool
	x, y   []float64
}

// chartColors are per transport: steady state solid, after GC dashed.
var chartColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}

// SVG draws server RSS against N: all transports on the left, the first
// (roost's own) alone on the right, where its slope is visible.
func (r *Report) SVG() string {
	all := r.rssSeries()
	var own []series
	for _, s := range all {
		if strings.HasPrefix(s.name, r.Transports[0].Transport+" ") {
			own = append(own, s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", 2*panelW, panelH+40)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	panel(&b, 0, "Server RSS (MB) against idle connections", all)
	panel(&b, panelW, fmt.Sprintf("%s transport alone", r.Transports[0].Transport), own)
	legend(&b, all)
	b.WriteString("</svg>\n")
	return b.String()
}

func (r *Report) rssSeries() []series {
	var out []series
	for i, t := range r.Transports {
		steady := series{name: t.Transport + " steady", color: chartColors[i%len(chartColors)]}
		gc := series{name: t.Transport + " after GC", color: steady.color, dashed: true}
		for _, s := range t.Steps {
			steady.x, steady.y = append(steady.x, float64(s.N)), append(steady.y, s.Window[1].RSS/1e6)
			if s.AfterGC != nil {
				gc.x, gc.y = append(gc.x, float64(s.N)), append(gc.y, s.AfterGC.RSS/1e6)
			}
		}
		out = append(out, steady)
		if len(gc.x) > 0 {
			out = append(out, gc)
		}
	}
	return out
}

// panel draws axes, ticks and lines for ss in a panel at x offset ox.
func panel(b *strings.Builder, ox float64, title string, ss []series) {
	maxX, maxY := 1.0, 1.0
	for _, s := range ss {
		for i := range s.x {
			maxX, maxY = math.Max(maxX, s.x[i]), math.Max(maxY, s.y[i])
		}
	}
	maxX, maxY = niceCeil(maxX), niceCeil(maxY)
	px := func(x float64) float64 { return ox + padL + x/maxX*(panelW-padL-padR) }
	py := func(y float64) float64 { return panelH - padB - y/maxY*(panelH-padT-padB) }
	fmt.Fprintf(b, `<text x="%.1f" y="20" font-weight="bold">%s</text>`+"\n", ox+padL, title)
	fmt.Fprintf(b, `<path d="M%.1f %.1f V%.1f H%.1f" stroke="black" fill="none"/>`+"\n", px(0), py(maxY), py(0), px(maxX))
	for i := 0; i <= 4; i++ {
		xv, yv := maxX*float64(i)/4, maxY*float64(i)/4
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%.0f</text>`+"\n", px(xv), py(0)+16, xv)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px(0)-6, py(yv)+4, trimFloat(yv))
		fmt.Fprintf(b, `<path d="M%.1f %.1f H%.1f" stroke="#ddd"/>`+"\n", px(0), py(yv), px(maxX))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">connections</text>`+"\n", px(maxX/2), py(0)+34)
	for _, s := range ss {
		line(b, s, px, py)
	}
}

func line(b *strings.Builder, s series, px, py func(float64) float64) {
	var pts []string
	for i := range s.x {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.x[i]), py(s.y[i])))
	}
	dash := ""
	if s.dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.color, dash)
	for i := range s.x {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(s.x[i]), py(s.y[i]), s.color)
	}
}

func legend(b *strings.Builder, ss []series) {
	x := padL
	for _, s := range ss {
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(b, `<path d="M%.1f %.1f h24" stroke="%s" stroke-width="2"%s/>`, x, panelH+20, s.color, dash)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x+30, panelH+24, s.name)
		x += 40 + 7*float64(len(s.name))
	}
}

// niceCeil rounds v up to a round multiple of a power of ten whose
// quarters are round too.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
