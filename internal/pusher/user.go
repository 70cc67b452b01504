package pusher

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Errors of ParseUserData and ParseChannelData.
var (
	errUserDataNotObject = errors.New("The user_data must be a JSON object.")
	errUserDataNoID      = errors.New("The user_data must have an id that is a non-empty string.")
	errUserDataLongID    = errors.New("The user_data id is longer than 128 characters.")
	errWatchlistType     = errors.New("The user_data watchlist must be an array of user id strings.")
	errChannelDataObject = errors.New("The channel_data must be a JSON object.")
	errChannelDataNoUser = errors.New("The channel_data must have a user_id that is a non-empty string or an integer.")
	errChannelDataLongID = errors.New("The channel_data user_id is longer than 128 characters.")
	errUserInfoTooBig    = errors.New("The channel_data user_info is larger than 1024 bytes.")
)

// UserData is a parsed pusher:signin user_data (Pusher docs, "User
// authentication"): the user's id (required, a non-empty string, as pusher-js
// user.ts insists), the ids on the user's watchlist (Pusher docs, "Watchlist
// events"), and Raw, the string as the client sent it, which the server
// echoes in pusher:signin_success.
type UserData struct {
	ID        string
	Watchlist []string
	Raw       string
}

// Member is a presence channel member as channel_data describes it (Pusher
// docs, "Presence channels"): UserID, and UserInfo, the raw JSON the app's
// auth endpoint attached (nil if none).
type Member struct {
	UserID   string
	UserInfo json.RawMessage
}

// ParseUserData parses the user_data string of a pusher:signin. The
// watchlist may hold more than MaxWatchlist ids: the caller watches the first
// MaxWatchlist and reports WatchlistLimit.
func ParseUserData(s string) (UserData, error) {
	c, ok := open([]byte(s), '{')
	if !ok {
		return UserData{}, errUserDataNotObject
	}
	u := UserData{Raw: s}
	var err error
	for key, val, ok := c.member(); ok && err == nil; key, val, ok = c.member() {
		switch {
		case keyIs(key, "id"):
			u.ID, err = optionalString(val, errUserDataNoID)
		case keyIs(key, "watchlist"):
			u.Watchlist, err = parseWatchlist(val)
		}
	}
	if err != nil {
		return UserData{}, err
	}
	return u, checkUserID(u.ID, errUserDataNoID, errUserDataLongID)
}

// parseWatchlist decodes an array of strings; null means none. An id listed
// twice is kept once, where it first appears: a watchlist is a set of users,
// and a connection is one watcher of each.
func parseWatchlist(raw []byte) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	c, ok := open(raw, '[')
	if !ok {
		return nil, errWatchlistType
	}
	var ids []string
	seen := make(map[string]bool)
	for val, ok := c.element(); ok; val, ok = c.element() {
		id, isString := unquote(val)
		if !isString {
			return nil, errWatchlistType
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// ParseChannelData parses the channel_data of a presence subscription. The
// user_id may be a JSON string or an integer (server SDKs send both, and
// pusher-js keys its member table by the decimal text); it comes back as a
// string. It must be at most MaxUserIDLength characters and user_info at
// most MaxUserInfoBytes bytes.
func ParseChannelData(s string) (Member, error) {
	c, ok := open([]byte(s), '{')
	if !ok {
		return Member{}, errChannelDataObject
	}
	var m Member
	var err error
	for key, val, ok := c.member(); ok && err == nil; key, val, ok = c.member() {
		switch {
		case keyIs(key, "user_id"):
			m.UserID, err = userIDText(val)
		case keyIs(key, "user_info"):
			m.UserInfo = userInfo(val)
		}
	}
	if err == nil && len(m.UserInfo) > MaxUserInfoBytes {
		err = errUserInfoTooBig
	}
	if err == nil {
		err = checkUserID(m.UserID, errChannelDataNoUser, errChannelDataLongID)
	}
	if err != nil {
		return Member{}, err
	}
	return m, nil
}

// userInfo returns the raw user_info, or nil for null.
func userInfo(raw []byte) json.RawMessage {
	if isNull(raw) {
		return nil
	}
	return json.RawMessage(raw)
}

// userIDText returns a user_id given as a JSON string or number as text.
func userIDText(raw []byte) (string, error) {
	if s, ok := unquote(raw); ok {
		return s, nil
	}
	if raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') {
		return integerText(string(raw))
	}
	return "", errChannelDataNoUser
}

// integerText returns the decimal text JavaScript's String() gives the
// JSON number lit, if lit is an integer: as written when it has no fraction
// or exponent, otherwise via float64 (so 10.0 and 1e3 become "10" and
// "1000"). Non-integers and integers beyond 2^53 in float form are refused.
func integerText(lit string) (string, error) {
	if _, err := strconv.ParseInt(lit, 10, 64); err == nil && lit != "-0" {
		return lit, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", errChannelDataNoUser
	}
	return strconv.FormatFloat(f+0, 'f', -1, 64), nil // +0 turns -0 into 0
}

// checkUserID requires a non-empty id of at most MaxUserIDLength characters.
func checkUserID(id string, empty, long error) error {
	switch {
	case id == "":
		return empty
	case len(id) > MaxUserIDLength && utf8.RuneCountInString(id) > MaxUserIDLength:
		return long
	}
	return nil
}
