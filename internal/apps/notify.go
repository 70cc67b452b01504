package apps

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// NotifyChannel is the PostgreSQL channel the trigger in docs/apps.md
// notifies with the id of a changed row.
const NotifyChannel = "roost_apps"

// listen keeps a PostgreSQL connection LISTENing on NotifyChannel, and
// reads a notified app again at once instead of at the next refresh.
// Without the trigger nothing is ever notified and the refresh interval
// applies. A lost connection is dialled again after a pause.
func (s *DB) listen() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	for ctx.Err() == nil {
		if err := s.listenOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("app store: LISTEN connection lost", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.cfg.Refresh):
		}
	}
}

// listenOnce serves one LISTEN connection until it fails.
func (s *DB) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.notified(ctx, n.Payload)
	}
}

// notified reads the app with id again if it is cached, and forgets every
// unknown key: the row may be new.
func (s *DB) notified(ctx context.Context, id string) {
	s.forgetUnknown(true)
	if a, _ := s.cached(colID, id); a != nil {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Wait)
		defer cancel()
		s.reload(ctx, []string{id})
	}
}
