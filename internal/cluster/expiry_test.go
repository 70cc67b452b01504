package cluster

import "testing"

// TestSharesExpireBeforeTheirRecords: a share key refreshed every
// ShareRefresh never expires under a live node, and expires at least a
// reaping's time (far more than a node TTL and the reap lock) before the
// records through which a restarted cluster reaps the shares of its former
// nodes (expiry.go).
func TestSharesExpireBeforeTheirRecords(t *testing.T) {
	if ShareRefresh*2 > ShareTTL {
		t.Fatalf("refreshed every %v, a share key with a TTL of %v may lapse under a live node", ShareRefresh, ShareTTL)
	}
	var s Settings
	s.ApplyDefaults()
	if margin := RecordTTL - ShareTTL; margin < 4*(s.NodeTTL+reapLockTTL) {
		t.Fatalf("shares expire %v before the node records; a restarted cluster needs more to reap them", margin)
	}
}
