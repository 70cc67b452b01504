package chaos

import "errors"

var errNoGreeting = errors.New("no pusher:connection_established")
