package cluster

import (
	"testing"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

func TestDefaultsFillOnlyZeroValues(t *testing.T) {
	var s Settings
	s.ApplyDefaults()
	if s.Prefix != "" || s.NodeTTL != 15*time.Second || s.SlowReply != 3*time.Second || s.Outbox != 65536 || s.Logger == nil || s.Observer == nil {
		t.Fatalf("defaults %+v", s)
	}
	set := Settings{Prefix: "p", NodeTTL: time.Second, SlowReply: time.Millisecond, Outbox: 7, Observer: hub.NopObserver{}}
	set.ApplyDefaults()
	if set.Prefix != "p" || set.NodeTTL != time.Second || set.SlowReply != time.Millisecond || set.Outbox != 7 {
		t.Fatalf("a setting given was replaced: %+v", set)
	}
}
