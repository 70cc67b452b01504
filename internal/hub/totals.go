package hub

// Totals returns how many channels have local subscribers and how many local
// subscriptions they hold, for the node's metrics (roost_channels,
// roost_subscriptions). Both are kept as Acquire and Release go, so a scrape
// costs the same with a million channels as with one.
func (h *Hub) Totals() (channels, subscriptions int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.nchannels, h.nsubs
}
