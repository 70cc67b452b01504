package natsstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
	"github.com/roostproject/roost/internal/testutil"
)

// TestDeadNodesDeferredDepartureAnnounced: see
// clustertest.DeadNodesDeferredDepartureAnnounced.
func TestDeadNodesDeferredDepartureAnnounced(t *testing.T) {
	removals := &clustertest.Removals{}
	ns, boxes := nodesAt(t, testutil.MachineNATSURL, 2, func(i int, c *cluster.Settings) {
		c.NodeTTL = 900 * time.Millisecond
		c.Observer = removals.Of(fmt.Sprint(i + 1))
	})
	clustertest.DeadNodesDeferredDepartureAnnounced(t, ns[0], ns[1], removals, boxes[0], natsWait)
}

// TestSignOutDeferredUntilConfirmed: see
// clustertest.SignOutDeferredUntilConfirmed.
func TestSignOutDeferredUntilConfirmed(t *testing.T) {
	ns, boxes := nodes(t, 2, 900*time.Millisecond)
	clustertest.SignOutDeferredUntilConfirmed(t, ns[0], ns[1], boxes[0], natsWait)
}

// TestOutageDepartureHeldForComeback: see
// clustertest.OutageDepartureHeldForComeback.
func TestOutageDepartureHeldForComeback(t *testing.T) {
	ns, boxes := nodes(t, 2, 900*time.Millisecond)
	clustertest.OutageDepartureHeldForComeback(t, ns[0], ns[1], boxes[0], natsWait)
}
