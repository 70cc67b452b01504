package portable

// CloseReason tells the dashboard's debug console why the connection
// ended, as a label of roost_connections_closed_total.
func (c *conn) CloseReason() string { return c.reason().String() }
