package admission

import (
	"regexp"
	"strconv"

	"github.com/roostproject/roost/internal/pusher"
)

var versionRE = regexp.MustCompile(`^\d+(\.\d+){0,2}([-+][0-9A-Za-z.\-]+)?$`)

// checkProtocol applies the Pusher protocol version rules to a session's
// query (docs/protocol.md, "Refusals"): protocol 5 to 7 are spoken;
// without a protocol the client's version must at least be well-formed.
func checkProtocol(q Query) (pusher.Code, string) {
	v := q.Get("version")
	if v != "" && !versionRE.MatchString(v) {
		return pusher.InvalidVersion, "invalid version string"
	}
	p := q.Get("protocol")
	if p == "" {
		if v == "" {
			return pusher.NoProtocol, "no protocol version given"
		}
		return 0, ""
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 5 || n > 7 {
		return pusher.UnsupportedProtocol, "unsupported protocol version " + strconv.Quote(p)
	}
	return 0, ""
}
