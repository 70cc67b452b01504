package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// decodeYAML reads one YAML document into c. It walks the node tree itself
// rather than calling Decoder.Decode with KnownFields(true): the walk rejects
// unknown keys just as strictly, but its errors name the key by its full path
// ("apps[1].max_conections") instead of by Go type, and it also rejects
// duplicate keys. An empty file, or one that is only comments, sets nothing.
func decodeYAML(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil
	} else if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return fmt.Errorf("config: line %d: the file must hold one YAML document, found a second", next.Line)
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("config: %w", err)
	}
	return decodeRoot(&doc, c)
}

// decodeRoot decodes the document's top-level mapping.
func decodeRoot(doc *yaml.Node, c *Config) error {
	if len(doc.Content) == 0 {
		return nil
	}
	root := resolve(doc.Content[0])
	if !isNull(root) && root.Kind != yaml.MappingNode {
		return fmt.Errorf("config: line %d: the file must be a mapping of settings, got %s", root.Line, describe(root))
	}
	return decodeMapping(root, "", c.decodeField)
}

// fieldFunc decodes the value of one key of a mapping, returning
// errUnknownField for a key it does not know.
type fieldFunc func(key string, value *yaml.Node) error

// decodeMapping calls field for each key of mapping n, whose path is path;
// errors are tagged with the key's full path and line.
func decodeMapping(n *yaml.Node, path string, field fieldFunc) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fieldErr(path, n.Line, "expected a mapping, got %s", describe(n))
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := decodeEntry(n.Content[i], n.Content[i+1], path, seen, field); err != nil {
			return err
		}
	}
	return nil
}

// decodeEntry decodes one key: value pair of a mapping at path. seen maps
// keys already decoded to their line, to catch duplicates.
func decodeEntry(k, v *yaml.Node, path string, seen map[string]int, field fieldFunc) error {
	k = resolve(k)
	if k.Kind != yaml.ScalarNode {
		return fieldErr(joinPath(path, "?"), k.Line, "a key must be a plain name, got %s", describe(k))
	}
	p := joinPath(path, k.Value)
	if line, dup := seen[k.Value]; dup {
		return fieldErr(p, k.Line, "duplicate key (first set on line %d)", line)
	}
	seen[k.Value] = k.Line
	if err := field(k.Value, v); err != nil {
		return atField(p, k.Line, err)
	}
	return nil
}

// joinPath appends key to a dotted YAML path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decodeField decodes one top-level key.
func (c *Config) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "addr":
		return decodeString(v, &c.Addr)
	case "tls":
		return decodeMapping(v, key, c.TLS.decodeField)
	case "transport":
		return decodeString(v, &c.Transport)
	case "loops":
		return decodeInt(v, &c.Loops)
	case "activity_timeout":
		return decodeDuration(v, &c.ActivityTimeout)
	case "pong_wait":
		return decodeDuration(v, &c.PongWait)
	case "shutdown_timeout":
		return decodeDuration(v, &c.ShutdownTimeout)
	case "gc_percent":
		return decodeInt(v, &c.GCPercent)
	case "limits":
		return decodeMapping(v, key, c.Limits.decodeField)
	case "apps":
		return decodeApps(v, &c.Apps)
	case "log":
		return decodeMapping(v, key, c.Log.decodeField)
	case "redis":
		return decodeMapping(v, key, c.Redis.decodeField)
	}
	return errUnknownField
}

// decodeField decodes one key under tls.
func (t *TLS) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "cert_file":
		return decodeString(v, &t.CertFile)
	case "key_file":
		return decodeString(v, &t.KeyFile)
	}
	return errUnknownField
}

// decodeField decodes one key under limits.
func (l *Limits) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "max_message_size":
		return decodeSize(v, &l.MaxMessageSize)
	case "max_body_size":
		return decodeSize(v, &l.MaxBodySize)
	case "max_event_data":
		return decodeSize(v, &l.MaxEventData)
	case "write_backlog":
		return decodeSize(v, &l.WriteBacklog)
	case "write_timeout":
		return decodeDuration(v, &l.WriteTimeout)
	case "handshake_timeout":
		return decodeDuration(v, &l.HandshakeTimeout)
	case "max_header_bytes":
		return decodeSize(v, &l.MaxHeaderBytes)
	case "client_events_per_second":
		return decodeInt(v, &l.ClientEventsPerSecond)
	}
	return errUnknownField
}

// decodeApps decodes the apps list, naming each entry apps[i].
func decodeApps(n *yaml.Node, apps *[]App) error {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("expected a list of apps, got %s", describe(n))
	}
	*apps = make([]App, len(n.Content))
	for i, item := range n.Content {
		a := &(*apps)[i]
		if err := decodeMapping(item, fmt.Sprintf("apps[%d]", i), a.decodeField); err != nil {
			return err
		}
	}
	return nil
}

// decodeField decodes one key of an apps entry.
func (a *App) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "id":
		return decodeString(v, &a.ID)
	case "key":
		return decodeString(v, &a.Key)
	case "secret":
		return decodeString(v, &a.Secret)
	case "enabled":
		return decodeBoolPtr(v, &a.Enabled)
	case "client_events":
		return decodeBool(v, &a.ClientEvents)
	case "subscription_count":
		return decodeBool(v, &a.SubscriptionCount)
	case "max_connections":
		return decodeInt(v, &a.MaxConnections)
	case "max_presence_members":
		return decodeInt(v, &a.MaxPresenceMembers)
	case "max_presence_user_info":
		return decodeSize(v, &a.MaxPresenceUserInfo)
	}
	return errUnknownField
}

// decodeField decodes one key under log.
func (l *Log) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "level":
		return decodeString(v, &l.Level)
	case "format":
		return decodeString(v, &l.Format)
	}
	return errUnknownField
}

// decodeField decodes one key under redis.
func (r *Redis) decodeField(key string, v *yaml.Node) error {
	switch key {
	case "url":
		return decodeString(v, &r.URL)
	case "prefix":
		return decodeString(v, &r.Prefix)
	}
	return errUnknownField
}
