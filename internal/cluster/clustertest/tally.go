package clustertest

import (
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/testutil"
)

// TallyAcrossNodes checks that each node learns the other nodes'
// connections per app, not its own, that a change is heard, and that a
// node stopped without its goodbye stops counting once its record lapses.
func TallyAcrossNodes[S cluster.Store](t *testing.T, a, b, c *Node[S], wait time.Duration) {
	t.Helper()
	ta, tb, tc := a.State().Tally, b.State().Tally, c.State().Tally
	ta.Here("app", 3)
	tb.Here("app", 2)
	tb.Here("other", 1)
	testutil.Eventually(t, wait, "each node's figure of the others", func() bool {
		return ta.Elsewhere("app") == 2 && tb.Elsewhere("app") == 3 && tc.Elsewhere("app") == 5 &&
			tc.Elsewhere("other") == 1 && ta.Elsewhere("other") == 1 && tb.Elsewhere("other") == 0
	})
	ta.Here("app", 1)
	testutil.Eventually(t, wait, "a's change heard", func() bool { return tc.Elsewhere("app") == 3 })
	b.Halt()
	testutil.Eventually(t, wait+cluster.ConnsTTL, "the halted node's record lapsed", func() bool {
		return tc.Elsewhere("app") == 1 && tc.Elsewhere("other") == 0 && ta.Elsewhere("app") == 0
	})
}
