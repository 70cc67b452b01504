package pusher

import (
	"strings"
	"testing"
)

func TestValidateChannel(t *testing.T) {
	tests := []struct{ name, err string }{
		{"my-channel", ""},
		{"private-encrypted-cache-a_b=c@d,e.f;g", ""},
		{strings.Repeat("a", 200), ""},
		{strings.Repeat("a", 201), "longer than 200"},
		{"", "empty"},
		{"#server-to-user-1", `contains '#'`},
		{"a b", `contains ' '`},
		{"caf\u00e9", `contains 'é'`},
		{"a\xff", "contains '\ufffd'"},
	}
	for _, tt := range tests {
		if err := ValidateChannel(tt.name); !errorMatches(err, tt.err) {
			t.Errorf("ValidateChannel(%q) = %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		name                                    string
		kind                                    Kind
		str                                     string
		auth, clientEvents, public, userChannel bool
	}{
		{"news", Public, "public", false, false, true, false},
		{"cache-news", Cache, "cache", false, false, true, false},
		{"private-a", Private, "private", true, true, false, false},
		{"private-cache-a", Private | Cache, "private-cache", true, true, false, false},
		{"private-encrypted-a", Private | Encrypted, "private-encrypted", true, false, false, false},
		{"private-encrypted-cache-a", Private | Encrypted | Cache, "private-encrypted-cache", true, false, false, false},
		{"presence-a", Presence, "presence", true, true, false, false},
		{"presence-cache-a", Presence | Cache, "presence-cache", true, true, false, false},
		{"#server-to-user-u1", ServerToUser, "server-to-user", false, false, false, true},
		{"privatefoo", Public, "public", false, false, true, false},
	}
	for _, tt := range tests {
		k := KindOf(tt.name)
		if k != tt.kind || k.String() != tt.str || k.RequiresAuth() != tt.auth ||
			k.AllowsClientEvents() != tt.clientEvents || k.IsPublic() != tt.public || k.IsServerToUser() != tt.userChannel {
			t.Errorf("KindOf(%q) = %v (%08b)", tt.name, k, k)
		}
	}
	if !KindOf("presence-x").IsPresence() || !KindOf("private-encrypted-x").IsEncrypted() ||
		!KindOf("cache-x").IsCache() || !KindOf("private-x").IsPrivate() || KindOf("presence-x").IsPrivate() {
		t.Error("predicates disagree with the flags")
	}
	if s := (Private | Presence).String(); s != "invalid" {
		t.Errorf("impossible kind prints %q", s)
	}
}

func TestParseUserChannel(t *testing.T) {
	tests := []struct{ name, id, err string }{
		{UserChannel("u1"), "u1", ""},
		{"#server-to-user-" + strings.Repeat("x", 128), strings.Repeat("x", 128), ""},
		{"#server-to-user-" + strings.Repeat("x", 129), "", "no valid user id"},
		{"#server-to-user-", "", "no valid user id"},
		{"#server-to-user-\xff", "", "no valid user id"},
		{"private-a", "", "not a #server-to-user- channel"},
	}
	for _, tt := range tests {
		id, err := ParseUserChannel(tt.name)
		if !errorMatches(err, tt.err) || id != tt.id {
			t.Errorf("ParseUserChannel(%q) = %q, %v", tt.name, id, err)
		}
	}
}

func TestValidateEventName(t *testing.T) {
	for name, want := range map[string]string{
		"client-x":               "",
		strings.Repeat("é", 200): "",
		strings.Repeat("é", 201): "longer than 200",
		"":                       "empty",
	} {
		if err := ValidateEventName(name); !errorMatches(err, want) {
			t.Errorf("ValidateEventName(%q) = %v, want %q", name, err, want)
		}
	}
}

func TestCodes(t *testing.T) {
	all := []Code{TLSOnly, AppNotFound, AppDisabled, OverQuota, PathNotFound, InvalidVersion,
		UnsupportedProtocol, NoProtocol, Unauthorized, OverCapacity, ReconnectNow, PongTimeout,
		InactivityClose, ClientRateLimit, WatchlistLimit}
	for _, c := range all {
		if txt := c.Text(); len(txt) > 123 || strings.HasPrefix(txt, "Error") {
			t.Errorf("%v: text %q", c, txt)
		}
		if c.Closes() == (c == ClientRateLimit) {
			t.Errorf("%v: Closes = %v", c, c.Closes())
		}
	}
	if NoCode.Closes() || NoCode.String() != "none" || Code(4999).Text() != "Error 4999." || TLSOnly.String() != "4000" {
		t.Error("NoCode or unknown code misbehaves")
	}
}
