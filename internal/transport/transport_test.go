package transport

import (
	"testing"
	"time"

	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/ws"
)

func TestSilence(t *testing.T) {
	tests := []struct {
		activity, pongWait time.Duration
		pinged             bool
		want               time.Duration
	}{
		{120 * time.Second, 30 * time.Second, false, 132 * time.Second}, // a tenth as grace
		{5 * time.Second, 30 * time.Second, false, 6 * time.Second},     // at least a second
		{time.Second, time.Second, false, 2 * time.Second},
		{120 * time.Second, 30 * time.Second, true, 30 * time.Second}, // after a ping: the pong wait
	}
	for _, tt := range tests {
		p := Policy{ActivityTimeout: tt.activity, PongWait: tt.pongWait}
		if got := p.Silence(tt.pinged); got != tt.want {
			t.Errorf("activity %v, pong wait %v, pinged %v: Silence = %v, want %v",
				tt.activity, tt.pongWait, tt.pinged, got, tt.want)
		}
	}
}

func TestOverflows(t *testing.T) {
	p := Policy{WriteBacklog: 100}
	for _, tt := range []struct {
		queued, n int
		want      bool
	}{{0, 100, false}, {60, 40, false}, {60, 41, true}, {0, 101, true}} {
		if got := p.Overflows(tt.queued, tt.n); got != tt.want {
			t.Errorf("Overflows(%d, %d) = %v, want %v", tt.queued, tt.n, got, tt.want)
		}
	}
}

func TestEchoCode(t *testing.T) {
	for client, want := range map[ws.CloseCode]ws.CloseCode{
		ws.CloseNoStatus: ws.CloseNormal, ws.CloseNormal: ws.CloseNormal,
		ws.CloseGoingAway: ws.CloseGoingAway, 4000: 4000,
	} {
		if got := EchoCode(client); got != want {
			t.Errorf("EchoCode(%d) = %d, want %d", client, got, want)
		}
	}
}

func TestCauseKeepsTheFirstReason(t *testing.T) {
	for r := connstats.Reason(0); r < connstats.NumReasons; r++ {
		var c Cause
		c.Set(r)
		c.Set(connstats.Server)
		c.Set(connstats.Client)
		if got := c.Reason(); got != r {
			t.Errorf("Set(%v) then others: Reason = %v", r, got)
		}
	}
}

func TestCauseWithoutReasonIsClient(t *testing.T) {
	var c Cause
	if got := c.Reason(); got != connstats.Client {
		t.Fatalf("zero Cause: Reason = %v, want client", got)
	}
}
