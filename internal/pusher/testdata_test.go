package pusher

// Client messages exactly as pusher-js 8 writes them (connection.ts
// send_event: {event, data} then channel; channel.ts subscribe: {auth,
// channel_data, channel}, channel_data dropped by JSON.stringify when
// undefined). They seed the fuzz targets and the tests.
const (
	msgSubscribePublic   = `{"event":"pusher:subscribe","data":{"auth":"","channel":"my-channel"}}`
	msgSubscribePrivate  = `{"event":"pusher:subscribe","data":{"auth":"278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4","channel":"private-foobar"}}`
	msgSubscribePresence = `{"event":"pusher:subscribe","data":{"auth":"278d425bdf160c739803:31935e7d86dba64c2a90aed31fdc61869f9b22ba9d8863bba239c03ca481bc80","channel_data":"{\"user_id\":10,\"user_info\":{\"name\":\"Mr. Channels\"}}","channel":"presence-foobar"}}`
	msgPing              = `{"event":"pusher:ping","data":{}}`
	msgClientEvent       = `{"event":"client-typing","data":{"user":"alice","text":"h\u00e9llo \"you\""},"channel":"private-chat"}`
	msgSignin            = `{"event":"pusher:signin","data":{"auth":"278d425bdf160c739803:0f4e","user_data":"{\"id\":\"u1\",\"user_info\":{\"name\":\"Ann\"},\"watchlist\":[\"u2\",\"u3\"]}"}}`
	msgUnsubscribe       = `{"event":"pusher:unsubscribe","data":{"channel":"my-channel"}}`
)

// seedMessages lists the messages above.
var seedMessages = []string{
	msgSubscribePublic, msgSubscribePrivate, msgSubscribePresence, msgPing,
	msgClientEvent, msgSignin, msgUnsubscribe,
}
