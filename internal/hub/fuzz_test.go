package hub

import "testing"

// FuzzMemberOf feeds arbitrary data to the parser of member events, which
// other nodes send through Redis: nothing panics, and a member it reads
// encodes back to an event it reads the same.
func FuzzMemberOf(f *testing.F) {
	for _, m := range []Member{{ID: "u"}, {ID: "alice", Info: `{"name":"Alice"}`}, {ID: "42", Info: `[1,"x"]`}} {
		f.Add(MemberAdded("app", "presence-x", m, "1.2").Data)
		f.Add(MemberRemoved("app", "presence-x", m.ID).Data)
	}
	f.Add(`{"user_id":"","user_info":null}`)
	f.Add(`{"user_id":7}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, data string) {
		m, ok := memberOf(data)
		if !ok {
			return
		}
		again, ok := memberOf(memberData(m))
		if !ok || again.ID != m.ID {
			t.Fatalf("%q read as %+v, which encodes to %q, read as %+v", data, m, memberData(m), again)
		}
	})
}
