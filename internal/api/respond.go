package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// writeEmpty answers success with no attributes: `{}`, the body the Pusher
// HTTP API returns for a trigger without info. A failed write is not
// reported: the status is sent and the client has gone.
func writeEmpty(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "{}")
	return nil
}

// writeJSON answers success with v encoded as JSON.
func writeJSON(w http.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding response: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
	return nil
}
