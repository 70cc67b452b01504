package hub

// Totals returns how many channels have local subscribers and how many local
// subscriptions they hold, for the node's metrics (roost_channels,
// roost_subscriptions). It walks every channel under the read lock, so it is
// meant for a scrape every few seconds, never for the message path.
func (h *Hub) Totals() (channels, subscriptions int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, chans := range h.apps {
		channels += len(chans)
		for _, ch := range chans {
			subscriptions += ch.Count()
		}
	}
	return channels, subscriptions
}
