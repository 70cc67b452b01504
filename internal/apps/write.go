package apps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roostproject/roost/internal/config"
)

// The columns roost writes, in soketi's table: the ones an app's settings
// map to, and soketi's NOT NULL columns roost has no setting for, written
// as soketi's "no limit" or "off" so soketi could read the row too.
var (
	writeCols = []string{"id", "key", "secret", "enabled", "enable_client_messages", "max_connections",
		"max_presence_members_per_channel", "max_presence_member_size_in_kb",
		"max_backend_events_per_sec", "max_read_req_per_sec", "webhooks"}
	insertOnlyCols = []string{"max_client_events_per_sec", "enable_user_authentication"}
	insertOnlyVals = []any{unlimited, 0}
)

// row returns a's values for writeCols; booleans are 0/1 as in soketi's
// smallint and tinyint columns. The table keeps user info sizes in whole
// KB, so a's is rounded up to what will be read back.
func row(a *config.App) []any {
	kb := (a.MaxPresenceUserInfo + 1023) / 1024
	a.MaxPresenceUserInfo = kb * 1024
	return []any{a.ID, a.Key, a.Secret, bit(a.IsEnabled()), bit(a.ClientEvents), a.MaxConnections,
		a.MaxPresenceMembers, kb, rateCol(a.MaxBackendEventsPerSec), rateCol(a.MaxReadReqPerSec), webhooksColumn(a)}
}

// rateCol writes a per-second limit as soketi keeps it: -1 for none.
func rateCol(n int) int {
	if n == 0 {
		return unlimited
	}
	return n
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Create inserts a, which CheckApp has passed.
func (s *DB) Create(ctx context.Context, a *config.App) error {
	cols := append(append([]string{}, writeCols...), insertOnlyCols...)
	args := append(row(a), insertOnlyVals...)
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = s.d.ident(c)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", s.table, strings.Join(quoted, ","), s.d.params(1, len(cols)))
	if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
		return s.writeError(err)
	}
	s.forgetUnknown(true)
	return nil
}

// Update replaces the settings of the app with a.ID, then reads it again
// so this node applies the change at once (closing its connections if it
// was switched off).
func (s *DB) Update(ctx context.Context, a *config.App) error {
	vals := row(a)
	sets := make([]string, 0, len(writeCols)-1)
	for i, c := range writeCols[1:] {
		sets = append(sets, s.d.ident(c)+" = "+s.d.param(i+1))
	}
	q := fmt.Sprintf("UPDATE %s SET %s WHERE %s = %s", s.table, strings.Join(sets, ", "), s.d.ident(colID), s.d.param(len(writeCols)))
	res, err := s.db.ExecContext(ctx, q, append(vals[1:], a.ID)...)
	if err != nil {
		return s.writeError(err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		if cur, err := s.ByID(ctx, a.ID); err != nil || cur == nil {
			return ErrNotFound // MySQL counts unchanged rows as unaffected
		}
	}
	return s.reload(ctx, []string{a.ID})
}

// Delete removes the app with id; its connections on this node are closed.
func (s *DB) Delete(ctx context.Context, id string) error {
	q := fmt.Sprintf("DELETE FROM %s WHERE %s = %s", s.table, s.d.ident(colID), s.d.param(1))
	res, err := s.db.ExecContext(ctx, q, id)
	if err != nil {
		return s.writeError(err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrNotFound
	}
	s.remove(id)
	return nil
}

// List returns up to limit apps whose id sorts after after, by id, without
// caching them.
func (s *DB) List(ctx context.Context, after string, limit int) ([]config.App, error) {
	q := fmt.Sprintf("SELECT * FROM %s WHERE %s > %s ORDER BY %s LIMIT %d",
		s.table, s.d.ident(colID), s.d.param(1), s.d.ident(colID), limit)
	var list []config.App
	err := s.query(ctx, q, []any{after}, func(a config.App, _ error) {
		list = append(list, a)
	})
	return list, err
}

// writeError turns a unique-key violation into ErrConflict.
func (s *DB) writeError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "23505") || strings.Contains(msg, "Error 1062") {
		return ErrConflict
	}
	s.health.fail(err)
	return errors.Join(ErrUnavailable, err)
}
