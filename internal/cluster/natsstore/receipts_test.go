package natsstore

import (
	"testing"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/testutil"
)

// TestCountBatchAnsweredLateReportedOnce: a count batch that a stopped
// NATS (SIGSTOP) makes only when it resumes, its answer lost to the node's
// timeout, is sent again under its id and its transitions reported once.
func TestCountBatchAnsweredLateReportedOnce(t *testing.T) {
	srv := testutil.StartNATS(t)
	start := func(set func(int, *cluster.Settings)) *node {
		ns, _ := nodesAt(t, srv.URL(), 1, set)
		return ns[0]
	}
	clustertest.CountBatchAnsweredLate(t, start, srv.Pause, srv.Resume, natsWait)
}
