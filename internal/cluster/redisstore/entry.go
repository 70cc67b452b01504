package redisstore

import "github.com/redis/go-redis/v9"

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

// totals reads addScript's answer: the entry's totals before and after the
// change, or full when a new entry would exceed the maximum.
func totals(cmd *redis.Cmd) (before, after int, full bool, err error) {
	res, err := cmd.Result()
	if err != nil {
		return 0, 0, false, err
	}
	t, ok := res.([]any)
	if !ok || len(t) != 2 {
		return 0, 0, true, nil
	}
	b, _ := t[0].(int64)
	a, _ := t[1].(int64)
	return int(b), int(a), false, nil
}
