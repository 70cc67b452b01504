package cluster

import (
	"errors"
	"testing"
)

// stubStore is a store's own type, as a store package's open returns it.
type stubStore struct{ Store }

// TestStoreBackendOpensThroughOpen: the Backend a store package names
// returns the store its open made, and no store (a nil Store, not a nil
// *stubStore inside one) when its open fails.
func TestStoreBackendOpensThroughOpen(t *testing.T) {
	made, bad := &stubStore{}, errors.New("bad url")
	open := func(url string, _ Settings) (*stubStore, error) {
		if url == "bad" {
			return nil, bad
		}
		return made, nil
	}
	if s, err := StoreBackend("good", open, nil, nil).Open("good", Settings{}); err != nil || s != Store(made) {
		t.Fatalf("open: store %v, err %v; want the store open made", s, err)
	}
	if s, err := StoreBackend("bad", open, nil, nil).Open("bad", Settings{}); !errors.Is(err, bad) || s != nil {
		t.Fatalf("a failed open: store %#v, err %v; want nil and its error", s, err)
	}
}
