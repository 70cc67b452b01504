package pusher

import "strconv"

// AppendEvent appends the message {"event","channel","data"} a subscriber
// receives for a published event (Pusher docs, "Pusher Channels Protocol",
// "Channel events"). data is sent as a JSON string, so an app that
// published JSON text gets it double encoded, as pusher-js expects; channel
// is omitted when empty. It does not allocate when dst has room: a publish
// is encoded once for every subscriber.
func AppendEvent(dst []byte, event, channel, data string) []byte {
	dst = appendHead(dst, event, channel)
	dst = append(dst, `,"data":`...)
	dst = appendQuoted(dst, data)
	return append(dst, '}')
}

// AppendEventUser is AppendEvent with "user_id" added: the sender of a
// client event on a presence channel (pusher-js presence_channel.ts passes
// it to handlers as metadata.user_id).
func AppendEventUser(dst []byte, event, channel, data, userID string) []byte {
	dst = appendHead(dst, event, channel)
	dst = append(dst, `,"data":`...)
	dst = appendQuoted(dst, data)
	return appendUserID(dst, userID)
}

// AppendRawEvent appends an event whose data is the JSON value rawJSON,
// inserted as is (it must be valid JSON), for instance a client event whose
// data arrived as an object. data is omitted when rawJSON is empty.
func AppendRawEvent(dst []byte, event, channel string, rawJSON []byte) []byte {
	return append(appendRawBody(dst, event, channel, rawJSON), '}')
}

// AppendRawEventUser is AppendRawEvent with "user_id" added.
func AppendRawEventUser(dst []byte, event, channel string, rawJSON []byte, userID string) []byte {
	return appendUserID(appendRawBody(dst, event, channel, rawJSON), userID)
}

// AppendError appends a pusher:error (Pusher docs, "Pusher Channels
// Protocol", "pusher:error"): data is the object {"code","message"}, with
// "code":null for NoCode. The Pusher docs and the mobile clients expect an
// object here; pusher-js accepts either form.
func AppendError(dst []byte, code Code, message string) []byte {
	dst = append(dst, `{"event":"pusher:error","data":{"code":`...)
	if code == NoCode {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendUint(dst, uint64(code), 10)
	}
	dst = append(dst, `,"message":`...)
	dst = appendQuoted(dst, message)
	return append(dst, "}}"...)
}

// ConnectionEstablished appends the first message of every connection
// (Pusher docs, "pusher:connection_established"): data is the string
// {"socket_id","activity_timeout"}. pusher-js refuses the handshake when
// activity_timeout is missing or 0, and server SDKs refuse a socket_id that
// is not digits.digits.
func ConnectionEstablished(dst []byte, socketID string, activityTimeoutSeconds int) []byte {
	dst = append(dst, `{"event":"pusher:connection_established","data":`...)
	start := len(dst)
	dst = append(dst, `{"socket_id":`...)
	dst = appendQuoted(dst, socketID)
	dst = append(dst, `,"activity_timeout":`...)
	dst = strconv.AppendInt(dst, int64(activityTimeoutSeconds), 10)
	dst = append(dst, '}')
	return append(quoteTail(dst, start), '}')
}

// appendHead appends {"event":..[,"channel":..].
func appendHead(dst []byte, event, channel string) []byte {
	dst = append(dst, `{"event":`...)
	dst = appendQuoted(dst, event)
	if channel != "" {
		dst = append(dst, `,"channel":`...)
		dst = appendQuoted(dst, channel)
	}
	return dst
}

// appendRawBody appends the head and, if any, the raw data, unclosed.
func appendRawBody(dst []byte, event, channel string, rawJSON []byte) []byte {
	dst = appendHead(dst, event, channel)
	if len(rawJSON) > 0 {
		dst = append(dst, `,"data":`...)
		dst = append(dst, rawJSON...)
	}
	return dst
}

// appendUserID appends ,"user_id":.. and closes the message.
func appendUserID(dst []byte, userID string) []byte {
	dst = append(dst, `,"user_id":`...)
	dst = appendQuoted(dst, userID)
	return append(dst, '}')
}
