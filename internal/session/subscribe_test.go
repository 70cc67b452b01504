package session

import (
	"strings"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// signed subscribes to channel with a valid signature over channelData.
func signed(channel, channelData string) func(*recorder) string {
	return func(r *recorder) string { return subscribe(channel, r.channelAuth(channel, channelData), channelData) }
}

// unsigned sends a fixed message.
func unsigned(msg string) func(*recorder) string {
	return func(*recorder) string { return msg }
}

// A user's channel_data and what its presence subscription_succeeded says.
const (
	alice         = `{"user_id":"alice","user_info":{"name":"Alice"}}`
	alicePresence = `{"presence":{"ids":["alice"],"hash":{"alice":{"name":"Alice"}},"count":1}}`
)

// TestSubscribe runs one pusher:subscribe per channel kind and checks the
// exact replies (Pusher docs, "Pusher Channels Protocol", "Authorizing
// users", "Presence channels", "Encrypted channels", "Cache channels").
func TestSubscribe(t *testing.T) {
	long := strings.Repeat("a", 201)
	cases := []struct {
		name   string
		app    func(*config.App)
		before func(*fixture, *recorder) // its replies are dropped
		send   func(*recorder) string
		want   []string
		misses []string // cache misses reported to the webhook hook
	}{
		{name: "public", send: unsigned(subscribe("news", "", "")), want: []string{succeeded("news")}},
		{name: "public, auth ignored", send: unsigned(subscribe("news", "app-key:00", "")), want: []string{succeeded("news")}},
		{name: "name with a space", send: unsigned(subscribe("bad name", "", "")),
			want: []string{subscriptionError("bad name", "InvalidChannel", `The channel name contains ' '; use only A-Z, a-z, 0-9 and _-=@,.;`, 400)}},
		{name: "name of 201 characters", send: unsigned(subscribe(long, "", "")),
			want: []string{subscriptionError(long, "InvalidChannel", "The channel name is longer than 200 characters.", 400)}},
		{name: "another user's server-to-user channel", send: unsigned(subscribe("#server-to-user-bob", "", "")),
			want: []string{subscriptionError("#server-to-user-bob", "InvalidChannel", errNotThisUser.Error(), 400)}},
		{name: "no channel", send: unsigned(`{"event":"pusher:subscribe","data":{}}`),
			want: []string{pusherError(0, "The pusher:subscribe data has no channel.")}},
		{name: "data not an object", send: unsigned(`{"event":"pusher:subscribe","data":"news"}`),
			want: []string{pusherError(0, "The pusher:subscribe data must be a JSON object.")}},

		{name: "private, good signature", send: signed("private-a", ""), want: []string{succeeded("private-a")}},
		{name: "private, bad signature", send: unsigned(subscribe("private-a", "app-key:00", "")),
			want: []string{subscriptionError("private-a", "AuthError", `invalid signature for channel "private-a"`, 401)}},
		{name: "private, no auth", send: unsigned(subscribe("private-a", "", "")),
			want: []string{subscriptionError("private-a", "AuthError", `invalid signature for channel "private-a"`, 401)}},
		{name: "private, signed for another channel", send: func(r *recorder) string {
			return subscribe("private-a", r.channelAuth("private-b", ""), "")
		}, want: []string{subscriptionError("private-a", "AuthError", `invalid signature for channel "private-a"`, 401)}},
		{name: "private, another app's key", send: func(r *recorder) string {
			return subscribe("private-a", "other-key:"+strings.TrimPrefix(r.channelAuth("private-a", ""), "app-key:"), "")
		}, want: []string{subscriptionError("private-a", "AuthError", `invalid signature for channel "private-a"`, 401)}},
		{name: "encrypted, good signature", send: signed("private-encrypted-a", ""), want: []string{succeeded("private-encrypted-a")}},
		{name: "encrypted, bad signature", send: unsigned(subscribe("private-encrypted-a", "app-key:00", "")),
			want: []string{subscriptionError("private-encrypted-a", "AuthError", `invalid signature for channel "private-encrypted-a"`, 401)}},

		{name: "presence", send: signed("presence-r", alice),
			want: []string{event("pusher_internal:subscription_succeeded", "presence-r", alicePresence)}},
		{name: "presence, integer user_id", send: signed("presence-r", `{"user_id":7}`),
			want: []string{event("pusher_internal:subscription_succeeded", "presence-r", `{"presence":{"ids":["7"],"hash":{"7":null},"count":1}}`)}},
		{name: "presence, signature over other channel_data", send: func(r *recorder) string {
			return subscribe("presence-r", r.channelAuth("presence-r", `{"user_id":"bob"}`), alice)
		}, want: []string{subscriptionError("presence-r", "AuthError", `invalid signature for channel "presence-r"`, 401)}},
		{name: "presence, no channel_data", send: signed("presence-r", ""),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "The channel_data must be a JSON object.", 400)}},
		{name: "presence, no user_id", send: signed("presence-r", `{"user_info":{}}`),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "The channel_data must have a user_id that is a non-empty string or an integer.", 400)}},
		{name: "presence, user_id of 129 characters", send: signed("presence-r", `{"user_id":"`+strings.Repeat("u", 129)+`"}`),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "The channel_data user_id is longer than 128 characters.", 400)}},
		{name: "presence, user_info over 1 KB", send: signed("presence-r", `{"user_id":"u","user_info":"`+strings.Repeat("i", 1023)+`"}`),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "The channel_data user_info is larger than 1024 bytes.", 400)}},
		{name: "presence, user_info over the app's limit", app: func(a *config.App) { a.MaxPresenceUserInfo = 16 },
			send: signed("presence-r", `{"user_id":"u","user_info":"`+strings.Repeat("i", 15)+`"}`),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "user_info is larger than the app allows", 400)}},
		{name: "presence as the signed-in user, user_info over the app's limit", app: func(a *config.App) { a.MaxPresenceUserInfo = 16 },
			before: func(_ *fixture, r *recorder) {
				r.send(r.signin(`{"id":"u","user_info":"` + strings.Repeat("i", 15) + `"}`))
			},
			send: signed("presence-r", ""),
			want: []string{subscriptionError("presence-r", "InvalidChannelData", "user_info is larger than the app allows", 400)}},
		{name: "presence as the signed-in user", before: func(_ *fixture, r *recorder) { r.send(r.signin(`{"id":"alice","user_info":{"name":"Alice"}}`)) },
			send: signed("presence-r", ""), want: []string{event("pusher_internal:subscription_succeeded", "presence-r", alicePresence)}},
		{name: "presence, channel full", app: func(a *config.App) { a.MaxPresenceMembers = 1 },
			before: func(f *fixture, _ *recorder) { f.connect().join("presence-r", `{"user_id":"bob"}`) },
			send:   signed("presence-r", alice),
			want:   []string{subscriptionError("presence-r", "LimitReached", "presence channel is full", 403)}},

		{name: "cache miss", send: unsigned(subscribe("cache-x", "", "")),
			want: []string{succeeded("cache-x"), `{"event":"pusher:cache_miss","channel":"cache-x"}`}, misses: []string{"app-id/cache-x"}},
		{name: "cache hit", before: func(f *fixture, _ *recorder) { f.publish("cache-x", "e", "v1") },
			send: unsigned(subscribe("cache-x", "", "")), want: []string{succeeded("cache-x"), event("e", "cache-x", "v1")}},
		{name: "private cache miss", send: signed("private-cache-x", ""),
			want: []string{succeeded("private-cache-x"), `{"event":"pusher:cache_miss","channel":"private-cache-x"}`}, misses: []string{"app-id/private-cache-x"}},
		{name: "presence cache hit", before: func(f *fixture, _ *recorder) { f.publish("presence-cache-x", "e", "v1") },
			send: signed("presence-cache-x", alice),
			want: []string{event("pusher_internal:subscription_succeeded", "presence-cache-x", alicePresence), event("e", "presence-cache-x", "v1")}},

		{name: "subscription count", app: func(a *config.App) { a.SubscriptionCount = true },
			send: unsigned(subscribe("news", "", "")),
			want: []string{succeeded("news"), event("pusher_internal:subscription_count", "news", `{"subscription_count":1}`)}},
		{name: "no subscription count on presence", app: func(a *config.App) { a.SubscriptionCount = true },
			send: signed("presence-r", alice), want: []string{event("pusher_internal:subscription_succeeded", "presence-r", alicePresence)}},

		{name: "already subscribed", before: func(_ *fixture, r *recorder) { r.join("news", "") },
			send: unsigned(subscribe("news", "", "")), want: []string{succeeded("news")}},
		{name: "already a presence member", before: func(_ *fixture, r *recorder) { r.join("presence-r", alice) },
			send: signed("presence-r", alice), want: []string{event("pusher_internal:subscription_succeeded", "presence-r", alicePresence)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.app)
			r := f.connect()
			if tc.before != nil {
				tc.before(f, r)
				r.take()
				f.misses = nil
			}
			r.send(tc.send(r))
			r.expect(tc.want...)
			if strings.Join(f.misses, " ") != strings.Join(tc.misses, " ") {
				t.Errorf("cache misses reported %q, want %q", f.misses, tc.misses)
			}
			if r.closeCode() != 0 {
				t.Errorf("a subscription closed the connection with %d", r.closeCode())
			}
		})
	}
}
