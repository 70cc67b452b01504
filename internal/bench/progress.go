package bench

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Progress prints one status line while a benchmark runs: rewritten in
// place on a terminal, else at most one line every five seconds (so logs
// stay short).
type Progress struct {
	w     io.Writer
	tty   bool
	last  time.Time
	width int
}

// NewProgress returns a Progress writing to w; a nil w prints nothing.
func NewProgress(w io.Writer) *Progress {
	if w == nil {
		w = io.Discard
	}
	p := &Progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// Printf shows a new status.
func (p *Progress) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if !p.tty {
		if time.Since(p.last) >= 5*time.Second {
			fmt.Fprintln(p.w, line)
			p.last = time.Now()
		}
		return
	}
	pad := max(p.width-len(line), 0)
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.width = len(line)
}

// Done ends the status line.
func (p *Progress) Done() {
	if p.tty && p.width > 0 {
		fmt.Fprintln(p.w)
	}
	p.width, p.last = 0, time.Time{}
}
