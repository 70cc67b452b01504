package config

// App is one Pusher app: the credentials clients and server SDKs use, and
// the per-app switches and quotas (Pusher docs, "App settings"). Its JSON
// form, with the file's keys, is the admin API's.
type App struct {
	// ID names the app in HTTP API paths (/apps/{id}/events): letters,
	// digits, '_', '-' and '.', unique across apps. Zero value is invalid.
	ID string `yaml:"id" json:"id" env:"ROOST_APP_ID" default:"" example:"my-app" check:"name,unique" help:"names the app in HTTP API paths (/apps/{id}/...): letters, digits, _ - and ., unique"`
	// Key names the app to clients (/app/{key}) and in signed requests:
	// letters, digits, '_', '-' and '.', unique across apps. Zero value is
	// invalid.
	Key string `yaml:"key" json:"key" env:"ROOST_APP_KEY" default:"" example:"my-app-key" check:"name,unique" help:"names the app to clients (/app/{key}) and in signed requests: letters, digits, _ - and ., unique"`
	// Secret signs channel auth, user auth, HTTP API requests and webhooks
	// (Pusher docs, "Auth signatures"). Zero value is invalid.
	Secret string `yaml:"secret" json:"secret,omitempty" env:"ROOST_APP_SECRET" default:"" example:"change-me" check:"required" help:"signs auth and HTTP API requests; keep it secret"`
	// Enabled switches the app off without deleting it: a disabled app's
	// WebSocket connections are closed with 4003 and its API answers 403.
	// Zero value (nil) means enabled.
	Enabled *bool `yaml:"enabled" json:"enabled,omitempty" env:"ROOST_APP_ENABLED" default:"true" help:"false switches the app off: connections get 4003, the API 403"`
	// ClientEvents allows client- events on private and presence channels
	// (Pusher docs, "Client events"). Zero value means not allowed.
	ClientEvents bool `yaml:"client_events" json:"client_events" env:"ROOST_APP_CLIENT_EVENTS" default:"false" help:"allow client- events on private and presence channels"`
	// SubscriptionCount sends pusher_internal:subscription_count to
	// subscribers of non-presence channels. Zero value means not sent.
	SubscriptionCount bool `yaml:"subscription_count" json:"subscription_count" env:"ROOST_APP_SUBSCRIPTION_COUNT" default:"false" help:"send pusher_internal:subscription_count to subscribers of non-presence channels"`
	// Compression accepts permessage-deflate (RFC 7692) from the app's
	// clients that offer it: events published to them are sent compressed,
	// each compressed once for every subscriber that negotiated it, and
	// their compressed messages are inflated. Zero value means off: offers
	// are ignored.
	Compression bool `yaml:"compression" json:"compression" env:"ROOST_APP_COMPRESSION" default:"false" help:"accept permessage-deflate from clients that offer it: published events go out compressed, once per publish"`
	// AllowedOrigins lists the web origins whose pages may connect, by host:
	// "example.com", "*.example.com" (its subdomains) or "*" (any). A
	// handshake whose Origin header names another host gets HTTP 403; one
	// without the header (a server or mobile client) is not checked. Zero
	// value (empty) means any origin.
	AllowedOrigins []string `yaml:"allowed_origins" json:"allowed_origins,omitempty" env:"ROOST_APP_ALLOWED_ORIGINS" default:"" check:"origins" help:"hosts whose web pages may connect (example.com, *.example.com, *); others get 403; empty means any"`
	// MaxConnections caps the app's open connections across the cluster
	// (docs/cluster.md, "Connection limits"); a connection over it is
	// refused with 4004. Zero value means unlimited.
	MaxConnections int `yaml:"max_connections" json:"max_connections" env:"ROOST_APP_MAX_CONNECTIONS" default:"0" check:"min=0" help:"open connections of the app on every node of the cluster, more are refused with 4004 (a burst on several nodes may overshoot by what they let in while their counts cross, tens of milliseconds); 0 means unlimited"`
	// MaxPresenceMembers caps the distinct users in one presence channel
	// (Pusher docs, "Presence channels").
	MaxPresenceMembers int `yaml:"max_presence_members" json:"max_presence_members" env:"ROOST_APP_MAX_PRESENCE_MEMBERS" default:"100" check:"positive" help:"distinct users in one presence channel"`
	// MaxPresenceUserInfo caps the user_info of one presence member, in
	// bytes of JSON; the default is Pusher's limit.
	MaxPresenceUserInfo int `yaml:"max_presence_user_info" json:"max_presence_user_info" env:"ROOST_APP_MAX_PRESENCE_USER_INFO" default:"1KiB" unit:"bytes" check:"positive" help:"user_info of one presence member, as JSON"`
	// MaxBackendEventsPerSec caps the events the app's backend may publish
	// through the HTTP API per second on this node, counting an event once
	// per channel it is sent to; a request over it is refused whole with
	// 429. Zero value means unlimited.
	MaxBackendEventsPerSec int `yaml:"max_backend_events_per_sec" json:"max_backend_events_per_sec" env:"ROOST_APP_MAX_BACKEND_EVENTS_PER_SEC" default:"0" check:"min=0" help:"events per second the HTTP API publishes for the app on this node, one per channel of each; more get 429; 0 means unlimited"`
	// MaxReadReqPerSec caps the app's HTTP API queries (the GET endpoints)
	// per second on this node; more get 429. Zero value means unlimited.
	MaxReadReqPerSec int `yaml:"max_read_req_per_sec" json:"max_read_req_per_sec" env:"ROOST_APP_MAX_READ_REQ_PER_SEC" default:"0" check:"min=0" help:"HTTP API queries (GET) per second for the app on this node; more get 429; 0 means unlimited"`
	// MaxClientEventsPerSec caps the client events the app's connections
	// on this node may send per second, all together; one over it is
	// dropped with pusher:error 4301, as over the per-connection limit.
	// Each node counts its own. Zero value means unlimited.
	MaxClientEventsPerSec int `yaml:"max_client_events_per_sec" json:"max_client_events_per_sec" env:"ROOST_APP_MAX_CLIENT_EVENTS_PER_SEC" default:"0" check:"min=0" help:"client events per second from all the app's connections on this node, more get error 4301; 0 means unlimited"`
	// Webhooks are the URLs told of the app's channel, member, client and
	// cache events. Zero value (empty) means none.
	Webhooks []Webhook `yaml:"webhooks" json:"webhooks,omitempty" help:"URLs the app's events are POSTed to, signed like Pusher's webhooks (X-Pusher-Key, X-Pusher-Signature)"`
}

// IsEnabled reports whether the app accepts connections and API calls; a nil
// Enabled means true, so a config need not mention it.
func (a *App) IsEnabled() bool { return a.Enabled == nil || *a.Enabled }

// appIndex maps keys and ids to positions in the Apps slice it was built
// from. It remembers that slice so a Config whose Apps were replaced later
// falls back to a scan instead of answering from a stale map.
type appIndex struct {
	first *App // &Apps[0] when built
	n     int  // len(Apps) when built
	byKey map[string]int
	byID  map[string]int
}

// buildIndex indexes c.Apps; Load and Default call it once.
func (c *Config) buildIndex() {
	ix := appIndex{n: len(c.Apps), byKey: make(map[string]int, len(c.Apps)), byID: make(map[string]int, len(c.Apps))}
	for i := range c.Apps {
		ix.byKey[c.Apps[i].Key] = i
		ix.byID[c.Apps[i].ID] = i
	}
	if len(c.Apps) > 0 {
		ix.first = &c.Apps[0]
	}
	c.index = ix
}

// indexCurrent reports whether the index still describes c.Apps.
func (c *Config) indexCurrent() bool {
	if c.index.byKey == nil || c.index.n != len(c.Apps) {
		return false
	}
	return len(c.Apps) == 0 || c.index.first == &c.Apps[0]
}

// AppByKey returns the app a client names in /app/{key} (Pusher Channels
// protocol, "WebSocket connection"), or nil if there is none. It does not
// allocate; a Config built by hand is scanned instead of indexed.
func (c *Config) AppByKey(key string) *App {
	if !c.indexCurrent() {
		return c.scan(func(a *App) bool { return a.Key == key })
	}
	return c.indexed(c.index.byKey, key, func(a *App) bool { return a.Key == key })
}

// AppByID returns the app an HTTP API path names in /apps/{id}/ (Pusher docs,
// "HTTP API reference"), or nil if there is none.
func (c *Config) AppByID(id string) *App {
	if !c.indexCurrent() {
		return c.scan(func(a *App) bool { return a.ID == id })
	}
	return c.indexed(c.index.byID, id, func(a *App) bool { return a.ID == id })
}

// indexed looks name up in m and confirms the hit, in case an app was edited
// in place after indexing.
func (c *Config) indexed(m map[string]int, name string, match func(*App) bool) *App {
	i, ok := m[name]
	if !ok || !match(&c.Apps[i]) {
		return nil
	}
	return &c.Apps[i]
}

// scan finds the first app that matches, for a Config not built by Load.
func (c *Config) scan(match func(*App) bool) *App {
	for i := range c.Apps {
		if match(&c.Apps[i]) {
			return &c.Apps[i]
		}
	}
	return nil
}
