package apps

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/roostproject/roost/internal/config"
)

// unlimited is soketi's value for "no limit" in its limit columns.
const unlimited = -1

// decodeRow turns one row of the apps table, as database/sql scans it into
// []any (int64, float64, bool, []byte, string or nil), into an app held to
// the configuration file's rules. cols are the row's column names; columns
// roost does not know are ignored, and soketi's optional columns may be
// missing. On a malformed row it returns the error and, when the row names
// its id and key, the app switched off, so the caller can refuse its
// clients instead of treating the key as unknown.
func decodeRow(cols []string, vals []any) (config.App, error) {
	var a config.App
	var errs []error
	for i, col := range cols {
		if err := decodeColumn(&a, strings.ToLower(col), vals[i]); err != nil {
			errs = append(errs, fmt.Errorf("column %s: %w", col, err))
		}
	}
	if len(errs) == 0 {
		if err := config.CheckApp(&a); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		off := false
		a.Enabled, a.Webhooks = &off, nil // refused: nothing of it runs
		return a, errors.Join(errs...)
	}
	return a, nil
}

// decodeColumn stores one column's value in a, or checks a column roost
// reads but does not implement (docs/apps.md lists which).
func decodeColumn(a *config.App, col string, v any) error {
	var err error
	switch col {
	case "id":
		a.ID, err = text(v)
	case "key":
		a.Key, err = text(v)
	case "secret":
		a.Secret, err = text(v)
	case "enabled":
		a.Enabled, err = optFlag(v)
	case "enable_client_messages":
		a.ClientEvents, err = flag(v)
	case "max_connections":
		a.MaxConnections, err = connLimit(v)
	case "max_presence_members_per_channel":
		a.MaxPresenceMembers, err = optInt(v)
	case "max_presence_member_size_in_kb":
		a.MaxPresenceUserInfo, err = kilobytes(v)
	case "webhooks":
		a.Webhooks, err = parseWebhooks(v)
	case "enable_user_authentication":
		_, err = flag(v)
	case "max_backend_events_per_sec":
		a.MaxBackendEventsPerSec, err = connLimit(v)
	case "max_read_req_per_sec":
		a.MaxReadReqPerSec, err = connLimit(v)
	case "max_client_events_per_sec", "max_channel_name_length", "max_event_channels_at_once", "max_event_name_length",
		"max_event_payload_in_kb", "max_event_batch_size":
		_, err = optInt(v)
	}
	return err
}

// text reads a string column; an integer id (a serial primary key) is
// written in decimal.
func text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("want text, got %T", v)
}

// flag reads a boolean stored as soketi does (smallint or tinyint 0/1) or as
// a SQL boolean; NULL is false.
func flag(v any) (bool, error) {
	p, err := optFlag(v)
	return p != nil && *p, err
}

// optFlag is flag with NULL as nil, so the setting's default applies.
func optFlag(v any) (*bool, error) {
	var b bool
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		b = x
	case int64:
		b = x != 0
	case []byte, string:
		s, _ := text(x)
		switch strings.ToLower(s) {
		case "1", "t", "true":
			b = true
		case "0", "f", "false":
		default:
			return nil, fmt.Errorf("want 0 or 1, got %q", s)
		}
	default:
		return nil, fmt.Errorf("want 0 or 1, got %T", v)
	}
	return &b, nil
}

// optInt reads a limit: NULL, soketi's "use the default", is 0 (which
// CheckApp replaces with the default); below -1 is an error.
func optInt(v any) (int, error) {
	n, err := number(v)
	if err != nil || n == nil {
		return 0, err
	}
	if *n < unlimited {
		return 0, fmt.Errorf("must be -1 (no limit) or more, got %v", *n)
	}
	if *n > math.MaxInt32 {
		return 0, fmt.Errorf("%v is too large", *n)
	}
	return int(*n), nil
}

// connLimit reads max_connections: soketi's -1 (and 0, with which soketi
// would refuse every client) mean no limit, roost's 0.
func connLimit(v any) (int, error) {
	n, err := optInt(v)
	if n == unlimited {
		n = 0
	}
	return n, err
}

// kilobytes reads max_presence_member_size_in_kb into bytes.
func kilobytes(v any) (int, error) {
	n, err := number(v)
	if err != nil || n == nil {
		return 0, err
	}
	if *n <= 0 || *n > 1<<20 {
		return 0, fmt.Errorf("want 1 to %d KB, got %v", 1<<20, *n)
	}
	return int(math.Ceil(*n * 1024)), nil
}

// number reads a numeric column; NULL and ” (which soketi treats as NULL)
// are nil.
func number(v any) (*float64, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		f = float64(x)
	case float64:
		f = x
	case []byte, string:
		s, _ := text(x)
		if s == "" {
			return nil, nil
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("want a number, got %q", s)
		}
	default:
		return nil, fmt.Errorf("want a number, got %T", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("want a number, got %v", f)
	}
	return &f, nil
}
