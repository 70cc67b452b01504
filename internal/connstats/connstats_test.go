package connstats

import "testing"

// TestReasonString pins the label values of roost_connections_closed_total:
// dashboards and alerts select on them.
func TestReasonString(t *testing.T) {
	tests := []struct {
		r    Reason
		want string
	}{
		{Client, "client"}, {Timeout, "timeout"}, {Slow, "slow_consumer"},
		{Error, "error"}, {Server, "server"}, {NumReasons, "unknown"}, {255, "unknown"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("Reason(%d) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestRead checks that Read reports every counter, each from its own field.
func TestRead(t *testing.T) {
	var s Stats
	s.Opened()
	s.Opened()
	s.Ended(Slow)
	s.MessagesIn.Add(3)
	s.BytesIn.Add(4)
	s.FramesOut.Add(5)
	s.BytesOut.Add(6)
	want := Counts{Open: 1, Accepted: 2, MessagesIn: 3, BytesIn: 4, FramesOut: 5, BytesOut: 6}
	want.Closed[Slow] = 1
	if got := s.Read(); got != want {
		t.Fatalf("Read() = %+v, want %+v", got, want)
	}
}
