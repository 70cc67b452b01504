package cluster

import "context"

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

// add runs addScript; before/after are the entry's totals around the change.
func (r *Redis) add(ctx context.Context, key, field string, delta int, info string, max int) (before, after int, full bool, err error) {
	res, err := addScript.Run(ctx, r.rdb, []string{key}, field, r.node, delta, info, max).Result()
	if err != nil {
		return 0, 0, false, err
	}
	totals, ok := res.([]any)
	if !ok || len(totals) != 2 {
		return 0, 0, true, nil
	}
	b, _ := totals[0].(int64)
	a, _ := totals[1].(int64)
	return int(b), int(a), false, nil
}
