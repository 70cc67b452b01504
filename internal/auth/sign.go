package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

// Sign returns the lower-case hex HMAC-SHA256 of message keyed by secret,
// the signature every Pusher token and API request carries.
func Sign(secret, message string) string {
	return hex.EncodeToString(mac(secret, message))
}

// ChannelMessage returns the string a channel authorization token signs
// (Pusher docs, "Auth signatures"): "socket_id:channel" for private and
// encrypted channels, "socket_id:channel:channel_data" for presence
// channels, where channel_data is the exact string the client sent.
func ChannelMessage(socketID, channel, channelData string) string {
	if channelData == "" {
		return socketID + ":" + channel
	}
	return socketID + ":" + channel + ":" + channelData
}

// UserMessage returns the string a pusher:signin token signs (Pusher docs,
// "User authentication"): "socket_id::user::user_data".
func UserMessage(socketID, userData string) string {
	return socketID + "::user::" + userData
}

// CheckChannel reports whether auth, the "key:signature" a client sent in
// pusher:subscribe, authorizes socketID on channel for the app with this key
// and secret. A token made for another app's key is refused. The comparison
// is constant time.
func CheckChannel(key, secret, socketID, channel, channelData, auth string) bool {
	return check(key, secret, ChannelMessage(socketID, channel, channelData), auth)
}

// CheckUser reports whether auth, the "key:signature" a client sent in
// pusher:signin, authenticates userData on socketID for the app with this
// key and secret. The comparison is constant time.
func CheckUser(key, secret, socketID, userData, auth string) bool {
	return check(key, secret, UserMessage(socketID, userData), auth)
}

// check verifies a "key:hexsig" token over message.
func check(key, secret, message, auth string) bool {
	gotKey, sig, ok := strings.Cut(auth, ":")
	if !ok || subtle.ConstantTimeCompare([]byte(gotKey), []byte(key)) != 1 {
		return false
	}
	return equalHex(mac(secret, message), sig)
}

// equalHex reports in constant time whether the hex string sig encodes want.
func equalHex(want []byte, sig string) bool {
	var got [sha256.Size]byte
	if len(sig) != 2*len(got) {
		return false
	}
	if _, err := hex.Decode(got[:], []byte(sig)); err != nil {
		return false
	}
	return hmac.Equal(got[:], want)
}

// mac is the raw HMAC-SHA256 of message keyed by secret.
func mac(secret, message string) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(message))
	return h.Sum(nil)
}
