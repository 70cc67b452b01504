package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/roostproject/roost/internal/hub"
)

// channelsInfo is the reply to a trigger with info: attributes per channel.
type channelsInfo struct {
	Channels map[string]map[string]int `json:"channels"`
}

// batchInfo is the reply to a batch with info: attributes per event, in the
// order of the request.
type batchInfo struct {
	Batch []map[string]int `json:"batch"`
}

// batchBody is the body of POST /apps/{id}/batch_events.
type batchBody struct {
	Batch []eventBody `json:"batch"`
}

// events serves POST /apps/{id}/events (Pusher HTTP API reference, "POST
// event"): validate, publish, answer {} or the channels' attributes.
func (h *handler) events(w http.ResponseWriter, r *http.Request, req *request) error {
	var ev eventBody
	if err := json.Unmarshal(req.body, &ev); err != nil {
		return decodeError(err)
	}
	if err := h.check(&ev); err != nil {
		return err
	}
	if err := h.checkSize(&ev); err != nil {
		return err
	}
	if err := h.allowEvents(req.app, len(ev.Channels)); err != nil {
		return err
	}
	if err := h.publish(req.app.ID, &ev); err != nil {
		return err
	}
	h.cfg.Backend.WaitStored(r.Context())
	if ev.attrs == 0 {
		return writeEmpty(w)
	}
	info := channelsInfo{Channels: make(map[string]map[string]int, len(ev.Channels))}
	for _, name := range ev.Channels {
		info.Channels[name] = h.counts(r.Context(), req.app.ID, name, ev.attrs)
	}
	return writeJSON(w, info)
}

// batchEvents serves POST /apps/{id}/batch_events (Pusher HTTP API
// reference, "POST batch events"): every event is validated before the first
// is published.
func (h *handler) batchEvents(w http.ResponseWriter, r *http.Request, req *request) error {
	var b batchBody
	if err := json.Unmarshal(req.body, &b); err != nil {
		return decodeError(err)
	}
	if err := h.checkBatch(b.Batch); err != nil {
		return err
	}
	if err := h.allowEvents(req.app, len(b.Batch)); err != nil {
		return err
	}
	for i := range b.Batch {
		if err := h.publish(req.app.ID, &b.Batch[i]); err != nil {
			return err
		}
	}
	h.cfg.Backend.WaitStored(r.Context())
	return h.writeBatchInfo(w, r, req.app.ID, b.Batch)
}

// checkBatch validates a whole batch: 1 to 10 events, each a valid event on
// one channel; then, as for one event, the sizes of their data.
func (h *handler) checkBatch(batch []eventBody) error {
	if len(batch) == 0 || len(batch) > maxBatch {
		return errorf(http.StatusBadRequest, "batch: must hold 1 to %d events, not %d", maxBatch, len(batch))
	}
	for i := range batch {
		if len(batch[i].Channels) > 0 {
			return errorf(http.StatusBadRequest, "batch[%d].channels: a batched event takes channel", i)
		}
		if err := h.check(&batch[i]); err != nil {
			return within(err, fmt.Sprintf("batch[%d].", i))
		}
	}
	for i := range batch {
		if err := h.checkSize(&batch[i]); err != nil {
			return within(err, fmt.Sprintf("batch[%d].", i))
		}
	}
	return nil
}

// writeBatchInfo answers a batch: {} when no event asked for info, else one
// attribute object per event ({} for those that did not ask).
func (h *handler) writeBatchInfo(w http.ResponseWriter, r *http.Request, appID string, batch []eventBody) error {
	var asked attrs
	for i := range batch {
		asked |= batch[i].attrs
	}
	if asked == 0 {
		return writeEmpty(w)
	}
	info := batchInfo{Batch: make([]map[string]int, len(batch))}
	for i := range batch {
		info.Batch[i] = h.counts(r.Context(), appID, batch[i].Channels[0], batch[i].attrs)
	}
	return writeJSON(w, info)
}

// publish hands a validated event to the backend.
func (h *handler) publish(appID string, ev *eventBody) error {
	p := hub.Publication{
		Channels: ev.Channels,
		Event:    ev.Name,
		Data:     ev.Data.s,
		SocketID: ev.SocketID,
	}
	if err := h.cfg.Backend.Publish(appID, p); err != nil {
		return fmt.Errorf("publishing %q for app %s: %w", ev.Name, appID, err)
	}
	return nil
}
