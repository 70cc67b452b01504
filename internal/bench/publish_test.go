package bench

import (
	"encoding/json"
	"testing"
)

// TestPaddingIsJSON checks that padded event data has about the asked
// size, travels as a valid JSON string, and keeps its timestamp readable.
func TestPaddingIsJSON(t *testing.T) {
	pad := padding(1024)
	body := `{"name":"bench-ts","channel":"bench-p0","data":"1733000000123456789` + pad + `"}`
	var ev struct{ Data string }
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		t.Fatalf("padded body is not JSON: %v", err)
	}
	if n := len(ev.Data); n < 900 || n > 1100 {
		t.Fatalf("data of %d bytes for 1024", n)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(ev.Data[20:]), &list); err != nil || len(list) == 0 {
		t.Fatalf("the padding is not a JSON list: %v", err)
	}
	if ts, ok := eventStamp([]byte(body)); !ok || ts != 1733000000123456789 {
		t.Fatalf("timestamp %d, %v", ts, ok)
	}
	if padding(0) != "" {
		t.Fatal("padding without a size")
	}
}
