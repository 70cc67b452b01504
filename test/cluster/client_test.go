package cluster

import (
	"fmt"
	"testing"

	"github.com/roostproject/roost/internal/testutil"
)

// dial connects a client named name to n and reads
// pusher:connection_established.
func dial(t *testing.T, n *node, name string) *testutil.Client {
	t.Helper()
	c := testutil.Connect(t, n.wsURL(), nil)
	c.Name = name + " on " + n.name
	return c
}

// subscribePresence joins a presence channel as userID, signed with the
// nodes' app.
func subscribePresence(t *testing.T, c *testutil.Client, channel, userID string) testutil.Frame {
	t.Helper()
	cd := fmt.Sprintf(`{"user_id":%q}`, userID)
	return c.SubscribeWith(channel, c.ChannelAuth(appKey, appSecret, channel, cd), cd)
}

// inChannel matches an event by name and channel.
func inChannel(channel, event string) func(testutil.Frame) bool {
	return func(f testutil.Frame) bool { return f.Channel == channel && f.Event == event }
}
