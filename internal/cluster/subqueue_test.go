package cluster

import "testing"

func TestTakeInOrderAfterWake(t *testing.T) {
	q := NewSubQueue()
	for _, topic := range []string{"a", "b", "a"} {
		q.Push(SubOp{Channel: topic, On: topic == "a"})
	}
	<-q.Wake()
	select {
	case <-q.Wake():
		t.Fatal("three pushes left two wake-ups, want one")
	default:
	}
	ops := q.Take()
	if len(ops) != 3 || ops[0].Channel != "a" || ops[1].Channel != "b" || ops[1].On || !ops[2].On {
		t.Fatalf("took %+v, want a on, b off, a on", ops)
	}
	if len(q.Take()) != 0 {
		t.Fatal("a second take found changes again")
	}
}
