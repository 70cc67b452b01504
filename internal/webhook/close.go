package webhook

import (
	"context"
	"time"
)

// Close stops Webhooks within ctx: it lets the delayed events wait out their
// delay (clients of a stopping node reconnect elsewhere, and their comeback
// must still cancel them), sends those still held if ctx ends first, then
// sends what is queued without waiting for batches to fill. A batch that
// fails then is not retried (a backend that is down must not hold the
// shutdown for its whole timeout). Events not delivered are dropped and
// counted, as are facts reported after Close.
func (w *Webhooks) Close(ctx context.Context) {
	w.closeOnce.Do(func() { w.close(ctx) })
}

func (w *Webhooks) close(ctx context.Context) {
	select {
	case <-w.delays.drained():
	case <-ctx.Done():
	}
	w.delays.fireAll()
	w.in.close()
	w.intakeG.Wait()
	w.retireAll()
	done := make(chan struct{})
	go func() { w.senders.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		w.cancel()
		<-done
	}
	w.syncJournal(ctx)
	w.cancel()
	w.journalG.Wait()
}

// syncJournal writes what the outbox has not been told yet, within ctx
// (or a second, if ctx has ended): what a shutdown did not deliver stays
// there for the node that reaps this one.
func (w *Webhooks) syncJournal(ctx context.Context) {
	if w.journal == nil {
		return
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		defer cancel()
	}
	if err := w.journal.sync(ctx); err != nil {
		w.log.Warn("webhook outbox not written before stopping", "err", err)
	}
}
