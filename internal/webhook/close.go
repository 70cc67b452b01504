package webhook

import "context"

// Close stops Webhooks within ctx: delayed events are sent at once (the node
// is going away, and with it whatever would have cancelled them), then what
// is queued is sent without waiting for batches to fill and without retries
// past ctx. Events still queued when ctx ends are dropped and counted.
// Facts reported after Close are dropped and counted.
func (w *Webhooks) Close(ctx context.Context) {
	w.closeOnce.Do(func() { w.close(ctx) })
}

func (w *Webhooks) close(ctx context.Context) {
	w.delays.fireAll()
	w.in.close()
	w.intakeG.Wait()
	close(w.closing)
	done := make(chan struct{})
	go func() { w.senders.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		w.cancel()
		<-done
	}
	w.cancel()
	for _, a := range w.apps {
		for _, s := range a.senders {
			s.q.dropAll(DropShutdown)
		}
	}
}
