package pusher_test

import (
	"fmt"

	"github.com/roostproject/roost/internal/pusher"
)

func ExampleParseMessage() {
	m, err := pusher.ParseMessage([]byte(`{"event":"pusher:subscribe","data":{"auth":"","channel":"news"}}`))
	if err != nil {
		fmt.Println(string(pusher.AppendError(nil, pusher.NoCode, err.Error())))
		return
	}
	sub, _ := pusher.ParseSubscribe(m.Data)
	if err := pusher.ValidateChannel(sub.Channel); err == nil && !pusher.KindOf(sub.Channel).RequiresAuth() {
		fmt.Println(string(pusher.AppendSubscriptionSucceeded(nil, sub.Channel)))
	}
	// Output:
	// {"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}
}

func ExampleAppendEvent() {
	buf := make([]byte, 0, 512) // reused for every publish
	buf = pusher.AppendEvent(buf[:0], "my-event", "my-channel", `{"message":"hello"}`)
	fmt.Println(string(buf))
	// Output:
	// {"event":"my-event","channel":"my-channel","data":"{\"message\":\"hello\"}"}
}
