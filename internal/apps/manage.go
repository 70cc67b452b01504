package apps

import (
	"context"
	"fmt"

	"github.com/roostproject/roost/internal/config"
)

// List returns up to limit apps whose id sorts after after: the
// database's when there is one, else the configuration's.
func (s *Source) List(ctx context.Context, after string, limit int) ([]config.App, error) {
	if s.db != nil {
		return s.db.List(ctx, after, limit)
	}
	var out []config.App
	for _, a := range s.file.List() {
		if a.ID > after && len(out) < limit {
			out = append(out, a)
		}
	}
	return out, nil
}

// Create adds a new app, after CheckApp, to the database.
func (s *Source) Create(ctx context.Context, a *config.App) error {
	if err := s.writable(a); err != nil {
		return err
	}
	if taken, err := s.db.taken(ctx, a, false); err != nil || taken {
		return orConflict(err)
	}
	return s.db.Create(ctx, a)
}

// Update replaces the database app with a.ID, after CheckApp.
func (s *Source) Update(ctx context.Context, a *config.App) error {
	if err := s.writable(a); err != nil {
		return err
	}
	if taken, err := s.db.taken(ctx, a, true); err != nil || taken {
		return orConflict(err)
	}
	return s.db.Update(ctx, a)
}

// Delete removes the database app with id.
func (s *Source) Delete(ctx context.Context, id string) error {
	if s.db == nil || s.file.cfg.Load().AppByID(id) != nil {
		return ErrReadOnly
	}
	return s.db.Delete(ctx, id)
}

// writable checks a may be written: there is a database, a passes the
// configuration's rules, and no configured app has its id or key.
func (s *Source) writable(a *config.App) error {
	if s.db == nil {
		return ErrReadOnly
	}
	if err := config.CheckApp(a); err != nil {
		return err
	}
	if s.clash(a) {
		return fmt.Errorf("%w by an app of the configuration file", ErrConflict)
	}
	return nil
}

// orConflict is err, or ErrConflict when there was no error.
func orConflict(err error) error {
	if err != nil {
		return err
	}
	return ErrConflict
}

// taken reports whether another row has a's key, or (when creating) a's
// id. soketi's table does not declare key unique, so this is checked here.
func (s *DB) taken(ctx context.Context, a *config.App, updating bool) (bool, error) {
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s OR %s = %s",
		s.d.ident(colID), s.table, s.d.ident(colKey), s.d.param(1), s.d.ident(colID), s.d.param(2))
	rows, err := s.db.QueryContext(ctx, q, a.Key, a.ID)
	if err != nil {
		return false, s.writeError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return false, s.writeError(err)
		}
		if !updating || id != a.ID {
			return true, nil
		}
	}
	return false, rows.Err()
}
