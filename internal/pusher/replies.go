package pusher

import (
	"encoding/json"
	"iter"
	"strconv"
)

// The replies below are the server's own messages. Each writes `data` as a
// JSON string holding the payload, as the Pusher service does, unless its
// doc says otherwise; the field types inside follow what pusher-js reads.

// AppendPing appends a server pusher:ping with data "{}" (Pusher docs,
// "Ping and pong messages"); pusher-js answers with pusher:pong.
func AppendPing(dst []byte) []byte {
	return append(dst, `{"event":"pusher:ping","data":"{}"}`...)
}

// AppendPong appends the pusher:pong answering a client's pusher:ping.
func AppendPong(dst []byte) []byte {
	return append(dst, `{"event":"pusher:pong","data":"{}"}`...)
}

// AppendSubscriptionSucceeded appends pusher_internal:subscription_succeeded
// for a public, private or encrypted channel, with data "{}".
func AppendSubscriptionSucceeded(dst []byte, channel string) []byte {
	return AppendEvent(dst, EventSubscriptionSucceeded, channel, "{}")
}

// AppendPresenceSucceeded appends pusher_internal:subscription_succeeded for
// a presence channel: {"presence":{"ids":[..],"hash":{id:info},"count":n}}
// (pusher-js members.ts onSubscription reads hash and count; ids is for
// older clients). members yields each user id once with its user_info (nil
// is written as null); it is ranged over twice.
func AppendPresenceSucceeded(dst []byte, channel string, members iter.Seq2[string, json.RawMessage]) []byte {
	dst = appendHead(dst, EventSubscriptionSucceeded, channel)
	dst = append(dst, `,"data":`...)
	start := len(dst)
	dst = append(dst, `{"presence":{"ids":[`...)
	count := 0
	for id := range members {
		dst = appendListItem(dst, count, id)
		count++
	}
	dst = append(dst, `],"hash":{`...)
	n := 0
	for id, info := range members {
		dst = appendListItem(dst, n, id)
		dst = appendRawOrNull(append(dst, ':'), info)
		n++
	}
	dst = append(dst, `},"count":`...)
	dst = strconv.AppendInt(dst, int64(count), 10)
	return append(quoteTail(append(dst, "}}"...), start), '}')
}

// AppendSubscriptionError appends pusher:subscription_error for a refused
// subscription; data is the object {"type":"AuthError","error","status"}
// that pusher-js channel.ts emits to the app for a failed authorization. The
// connection and its other subscriptions stay up.
func AppendSubscriptionError(dst []byte, channel, message string, status int) []byte {
	dst = appendHead(dst, EventSubscriptionError, channel)
	dst = append(dst, `,"data":{"type":"AuthError","error":`...)
	dst = appendQuoted(dst, message)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	return append(dst, "}}"...)
}

// AppendMemberAdded appends pusher_internal:member_added,
// {"user_id","user_info"} (pusher-js members.ts addMember).
func AppendMemberAdded(dst []byte, channel string, m Member) []byte {
	dst = appendHead(dst, EventMemberAdded, channel)
	dst = append(dst, `,"data":`...)
	start := len(dst)
	dst = append(dst, `{"user_id":`...)
	dst = appendQuoted(dst, m.UserID)
	dst = appendRawOrNull(append(dst, `,"user_info":`...), m.UserInfo)
	return append(quoteTail(append(dst, '}'), start), '}')
}

// AppendMemberRemoved appends pusher_internal:member_removed, {"user_id"}.
func AppendMemberRemoved(dst []byte, channel, userID string) []byte {
	dst = appendHead(dst, EventMemberRemoved, channel)
	dst = append(dst, `,"data":`...)
	start := len(dst)
	dst = appendQuoted(append(dst, `{"user_id":`...), userID)
	return append(quoteTail(append(dst, '}'), start), '}')
}

// AppendSigninSuccess appends pusher:signin_success, {"user_data"}, where
// user_data is the string the client signed in with (pusher-js user.ts
// parses it again and needs its id).
func AppendSigninSuccess(dst []byte, userData string) []byte {
	dst = append(dst, `{"event":"pusher:signin_success","data":`...)
	start := len(dst)
	dst = appendQuoted(append(dst, `{"user_data":`...), userData)
	return append(quoteTail(append(dst, '}'), start), '}')
}

// AppendWatchlistEvents appends pusher_internal:watchlist_events,
// {"events":[{"name":"online","user_ids":[..]},{"name":"offline",..}]}
// (pusher-js watchlist.ts emits each entry by name). An empty list is left
// out.
func AppendWatchlistEvents(dst []byte, online, offline []string) []byte {
	dst = append(dst, `{"event":"pusher_internal:watchlist_events","data":`...)
	start := len(dst)
	dst = append(dst, `{"events":[`...)
	if len(online) > 0 {
		dst = appendWatchlistEvent(dst, "online", online)
	}
	if len(offline) > 0 {
		if len(online) > 0 {
			dst = append(dst, ',')
		}
		dst = appendWatchlistEvent(dst, "offline", offline)
	}
	return append(quoteTail(append(dst, "]}"...), start), '}')
}

// appendWatchlistEvent appends {"name":name,"user_ids":[ids]}.
func appendWatchlistEvent(dst []byte, name string, ids []string) []byte {
	dst = append(dst, `{"name":"`...)
	dst = append(dst, name...)
	dst = append(dst, `","user_ids":[`...)
	for i, id := range ids {
		dst = appendListItem(dst, i, id)
	}
	return append(dst, "]}"...)
}

// AppendSubscriptionCount appends pusher_internal:subscription_count,
// {"subscription_count":n} (pusher-js channel.ts).
func AppendSubscriptionCount(dst []byte, channel string, count int) []byte {
	dst = appendHead(dst, EventSubscriptionCount, channel)
	dst = append(dst, `,"data":"{\"subscription_count\":`...)
	dst = strconv.AppendInt(dst, int64(count), 10)
	return append(dst, `}"}`...)
}

// AppendCacheMiss appends pusher:cache_miss, which has no data (Pusher
// docs, "Cache channels").
func AppendCacheMiss(dst []byte, channel string) []byte {
	return append(appendHead(dst, EventCacheMiss, channel), '}')
}

// appendListItem appends s as a JSON string, after a comma unless i is 0.
func appendListItem(dst []byte, i int, s string) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	return appendQuoted(dst, s)
}

// appendRawOrNull appends the raw JSON value, or null if it is empty.
func appendRawOrNull(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}
