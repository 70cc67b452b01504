package pusher

import "strings"

// Kind is the type of a channel, read from its name's prefix (Pusher docs,
// "Channels", "Private channels", "Presence channels", "Encrypted channels",
// "Cache channels"). It is a set of bit flags: "private-encrypted-cache-x" is
// Private|Encrypted|Cache. Public is the empty set.
type Kind uint8

// The channel kinds.
const (
	Public       Kind = 0
	Private      Kind = 1 << (iota - 1) // "private-": needs a channel auth token
	Presence                            // "presence-": needs a token over channel_data
	Encrypted                           // "private-encrypted-": payloads are end-to-end encrypted
	Cache                               // "cache-" variants: the last event is replayed
	ServerToUser                        // "#server-to-user-": needs a signed-in user
)

// prefixes maps name prefixes to kinds, longest first so that the first
// match is the right one.
var prefixes = [...]struct {
	prefix string
	kind   Kind
}{
	{"private-encrypted-cache-", Private | Encrypted | Cache},
	{"private-encrypted-", Private | Encrypted},
	{"private-cache-", Private | Cache},
	{"presence-cache-", Presence | Cache},
	{ServerToUserPrefix, ServerToUser},
	{"presence-", Presence},
	{"private-", Private},
	{"cache-", Cache},
}

// KindOf returns the kind of the channel called name.
func KindOf(name string) Kind {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.kind
		}
	}
	return Public
}

// IsPublic reports whether anyone may subscribe without a token.
func (k Kind) IsPublic() bool { return k == Public || k == Cache }

// IsPrivate reports a "private-" channel, encrypted or not.
func (k Kind) IsPrivate() bool { return k&Private != 0 }

// IsPresence reports a "presence-" channel.
func (k Kind) IsPresence() bool { return k&Presence != 0 }

// IsEncrypted reports a "private-encrypted-" channel: the server relays
// {"nonce","ciphertext"} and allows no client events.
func (k Kind) IsEncrypted() bool { return k&Encrypted != 0 }

// IsCache reports a cache channel, whose last event is replayed to new
// subscribers (or pusher:cache_miss sent).
func (k Kind) IsCache() bool { return k&Cache != 0 }

// IsServerToUser reports a "#server-to-user-" channel.
func (k Kind) IsServerToUser() bool { return k&ServerToUser != 0 }

// RequiresAuth reports whether pusher:subscribe must carry a channel token.
// A server-to-user channel needs a sign-in instead.
func (k Kind) RequiresAuth() bool { return k&(Private|Presence) != 0 }

// AllowsClientEvents reports whether client- events may be sent on the
// channel: private and presence channels, but not encrypted ones (Pusher
// docs, "Events", "Triggering client events").
func (k Kind) AllowsClientEvents() bool {
	return k&(Private|Presence) != 0 && k&Encrypted == 0
}

// String names the kind by its prefix, e.g. "private-encrypted-cache".
func (k Kind) String() string {
	for _, p := range prefixes {
		if p.kind == k {
			return strings.Trim(p.prefix, "#-")
		}
	}
	if k == Public {
		return "public"
	}
	return "invalid"
}
