package redisstore

// entry is the JSON of one entry of the presence, users and channels hashes:
// each node's share and, for presence, the member's user_info.
type entry struct {
	N map[string]int `json:"n"`
	I string         `json:"i,omitempty"`
}

func (e entry) total() int {
	t := 0
	for _, n := range e.N {
		t += n
	}
	return t
}
