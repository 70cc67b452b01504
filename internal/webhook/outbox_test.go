package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// memOutbox is an Outbox in memory that refuses writes while down, and
// records each write it takes.
type memOutbox struct {
	mu     sync.Mutex
	down   bool
	kept   map[string][]byte
	writes int
}

func (m *memOutbox) Write(_ context.Context, puts []Entry, dels []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return errors.New("down")
	}
	m.writes++
	for _, e := range puts {
		m.kept[e.Key] = e.Data
	}
	for _, k := range dels {
		delete(m.kept, k)
	}
	return nil
}

func (m *memOutbox) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.kept {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestJournalElidesAndGivesBack: a removal of a record not written yet
// removes its put (no write at all); a write the store refuses is made
// again, in order, with what came since, so that a removal never reaches
// the store before its put; the outbox depth counts the records the store
// has taken, not those on their way.
func TestJournalElidesAndGivesBack(t *testing.T) {
	out := &memOutbox{kept: map[string][]byte{}}
	j, c := newJournal(out), newCounters()
	ctx := context.Background()
	j.put(1, []byte("a"), c)
	j.del(1, c)
	if err := j.sync(ctx); err != nil || out.writes != 0 {
		t.Fatalf("an event removed before its write: %d writes, %v; want none", out.writes, err)
	}
	j.put(2, []byte("b"), c)
	j.put(3, []byte("c"), c)
	out.down = true
	if j.flush(ctx) == nil {
		t.Fatal("a refused write reported taken")
	}
	if n := c.outboxed.Load(); n != 0 {
		t.Fatalf("outbox depth %d with every write refused, want 0", n)
	}
	j.del(2, c) // its put was handed over and given back: both go, in order
	j.put(4, []byte("d"), c)
	out.down = false
	if err := j.sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := out.keys(), []string{entryKey(3), entryKey(4)}; !slices.Equal(got, want) {
		t.Fatalf("outbox %v, want %v", got, want)
	}
	if n := c.outboxed.Load(); n != 2 {
		t.Fatalf("outbox depth %d, want 2", n)
	}
}

// TestEntryKeysSortAsNumbers: the store orders an outbox by key, so the
// keys must sort as the numbers do.
func TestEntryKeysSortAsNumbers(t *testing.T) {
	nums := []uint64{1, 9, 10, 15, 16, 255, 256, 1 << 40}
	keys := make([]string, len(nums))
	for i, n := range nums {
		keys[i] = entryKey(n)
	}
	if !slices.IsSorted(keys) {
		t.Fatalf("keys %v do not sort as %v", keys, nums)
	}
}

// realRecords are records as journalQueued and journalHeld write them.
func realRecords(t testing.TB) [][]byte {
	ev := Event{Name: "member_removed", Channel: "presence-room", UserID: "alice"}
	q, _ := json.Marshal(record{ID: "7-1", App: "app", Ch: "presence-room", At: time.Now().UnixNano(),
		URL: "http://backend.example/hooks", Event: ev.AppendJSON(nil)})
	h, _ := json.Marshal(record{ID: "7-2", App: "app", Ch: "presence-room", At: time.Now().UnixNano(),
		Held: &ev, Key: "removed:app:presence-room:alice", Token: "7.3", Due: time.Now().UnixNano()})
	return [][]byte{q, h}
}

// FuzzDecodeRecord: whatever the store holds, decoding a record never
// panics, and what it accepts can be sent (a queued event's JSON is valid;
// a held one has its key and token).
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range realRecords(f) {
		f.Add(r)
	}
	f.Add([]byte(`{"app":"a","url":"http://x","ev":{"name":"x"}}`))
	f.Add([]byte(`garbage`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ok := decodeRecord(data)
		if !ok {
			return
		}
		if r.Held == nil && !json.Valid(r.Event) {
			t.Fatalf("accepted a queued record with invalid JSON: %q", data)
		}
		if r.Held != nil && (r.Key == "" || r.Token == "") {
			t.Fatalf("accepted a held record without key or token: %q", data)
		}
	})
}

// TestRealRecordsDecode: the records the webhooks write are read back.
func TestRealRecordsDecode(t *testing.T) {
	for _, data := range realRecords(t) {
		if _, ok := decodeRecord(data); !ok {
			t.Fatalf("record %s not read back", data)
		}
	}
}
