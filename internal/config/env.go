package config

import (
	"strings"
	"time"
)

// envPrefix marks the environment variables Load reads. A variable with
// this prefix that Load does not know is reported in Config.Warnings rather
// than refused: platforms set such variables themselves (Kubernetes gives
// every pod ROOST_PORT, ROOST_SERVICE_HOST... for a Service named "roost"),
// and a server must not refuse to start because of them.
const envPrefix = "ROOST_"

// The variables that together define one app, replacing the file's apps.
const (
	envAppID           = "ROOST_APP_ID"
	envAppKey          = "ROOST_APP_KEY"
	envAppSecret       = "ROOST_APP_SECRET"
	envAppClientEvents = "ROOST_APP_CLIENT_EVENTS"
)

// envSetter parses one variable's value into its field.
type envSetter func(value string) error

// envLoader applies ROOST_* variables to cfg; the app variables are
// gathered in app and applied together at the end.
type envLoader struct {
	cfg    *Config
	app    App
	appSet bool
}

// applyEnv overrides c's fields from environ ("NAME=value" entries, as
// os.Environ returns). As with os.Getenv, the first entry for a name wins;
// an empty value counts as unset, so `ROOST_X=${X}` in a compose file is
// harmless when X is not set.
func applyEnv(c *Config, environ []string) error {
	l := envLoader{cfg: c}
	seen := make(map[string]bool)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) || seen[name] {
			continue
		}
		seen[name] = true
		if err := l.apply(name, value); err != nil {
			return err
		}
	}
	return l.finish()
}

// apply sets one variable, naming it in any error.
func (l *envLoader) apply(name, value string) error {
	set := l.setter(name)
	if set == nil {
		l.cfg.Warnings = append(l.cfg.Warnings, name+" is not a roost setting and was ignored")
		return nil
	}
	if value == "" {
		return nil
	}
	if err := set(value); err != nil {
		return &FieldError{Field: name, Err: err}
	}
	return nil
}

// setter returns the parser for a ROOST_* variable, or nil if there is no
// such variable.
func (l *envLoader) setter(name string) envSetter {
	c := l.cfg
	switch name {
	case "ROOST_ADDR":
		return setString(&c.Addr)
	case "ROOST_TRANSPORT":
		return setString(&c.Transport)
	case "ROOST_LOOPS":
		return setInt(&c.Loops)
	case "ROOST_ACTIVITY_TIMEOUT":
		return setDuration(&c.ActivityTimeout)
	case "ROOST_PONG_WAIT":
		return setDuration(&c.PongWait)
	case "ROOST_SHUTDOWN_TIMEOUT":
		return setDuration(&c.ShutdownTimeout)
	case "ROOST_GC_PERCENT":
		return setInt(&c.GCPercent)
	case "ROOST_TLS_CERT":
		return setString(&c.TLS.CertFile)
	case "ROOST_TLS_KEY":
		return setString(&c.TLS.KeyFile)
	}
	return l.limitSetter(name)
}

// limitSetter continues setter with the limits variables.
func (l *envLoader) limitSetter(name string) envSetter {
	c := l.cfg
	switch name {
	case "ROOST_MAX_MESSAGE_SIZE":
		return setSize(&c.Limits.MaxMessageSize)
	case "ROOST_WRITE_BACKLOG":
		return setSize(&c.Limits.WriteBacklog)
	case "ROOST_WRITE_TIMEOUT":
		return setDuration(&c.Limits.WriteTimeout)
	case "ROOST_LOG_LEVEL":
		return setString(&c.Log.Level)
	case "ROOST_LOG_FORMAT":
		return setString(&c.Log.Format)
	case "ROOST_REDIS_URL":
		return setString(&c.Redis.URL)
	case "ROOST_REDIS_PREFIX":
		return setString(&c.Redis.Prefix)
	}
	return l.appSetter(name)
}

// appSetter continues setter with the ROOST_APP_* variables.
func (l *envLoader) appSetter(name string) envSetter {
	var set envSetter
	switch name {
	case envAppID:
		set = setString(&l.app.ID)
	case envAppKey:
		set = setString(&l.app.Key)
	case envAppSecret:
		set = setString(&l.app.Secret)
	case envAppClientEvents:
		set = setBool(&l.app.ClientEvents)
	default:
		return nil
	}
	return func(v string) error { l.appSet = true; return set(v) }
}

// finish replaces the apps with the one the ROOST_APP_* variables define,
// if any were set; id, key and secret must all be present.
func (l *envLoader) finish() error {
	if !l.appSet {
		return nil
	}
	required := []struct{ name, value string }{
		{envAppID, l.app.ID}, {envAppKey, l.app.Key}, {envAppSecret, l.app.Secret},
	}
	for _, r := range required {
		if r.value == "" {
			return fieldErr(r.name, 0, "not set; %s, %s and %s must be set together", envAppID, envAppKey, envAppSecret)
		}
	}
	l.cfg.Apps = []App{l.app}
	return nil
}

// setString returns a setter that stores the value as is.
func setString(p *string) envSetter {
	return func(v string) error { *p = v; return nil }
}

// setInt returns a setter that parses a decimal integer.
func setInt(p *int) envSetter {
	return func(v string) error { return parseInt(v, p) }
}

// setSize returns a setter that parses a byte count ("65536", "64KiB").
func setSize(p *int) envSetter {
	return func(v string) error { return parseSize(v, p) }
}

// setDuration returns a setter that parses a Go duration ("120s").
func setDuration(p *time.Duration) envSetter {
	return func(v string) error { return parseDuration(v, p) }
}

// setBool returns a setter that parses true or false.
func setBool(p *bool) envSetter {
	return func(v string) error { return parseBool(v, p) }
}
