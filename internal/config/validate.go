package config

import (
	"errors"
	"fmt"
	"reflect"
)

// validator collects every problem with a merged, defaulted Config, so one
// run of the server reports all of them rather than one per attempt.
type validator struct {
	errs []error
}

// fail records a problem with the setting at path.
func (v *validator) fail(path string, err error) {
	v.errs = append(v.errs, &FieldError{Field: path, Err: err})
}

// validate reports every invalid setting of c, which must already have its
// defaults applied: each setting's check rules, then the rules that relate
// two settings. The errors are joined, one "config: field: ..." a line,
// without their sources, which Load adds.
func (c *Config) validate() error {
	var v validator
	v.section(schema(), reflect.ValueOf(c).Elem(), "")
	v.tls(c.TLS)
	v.backends(c.Redis, c.NATS)
	v.proxies(c)
	return errors.Join(v.errs...)
}

// section checks the settings under fields, held in struct s at path.
func (v *validator) section(fields []*field, s reflect.Value, path string) {
	for _, f := range fields {
		p, x := joinPath(path, f.key), s.Field(f.index)
		switch {
		case f.list != nil:
			v.list(f, x, p)
		case !f.isSetting():
			v.section(f.fields, x, p)
		default:
			v.setting(f, x.Interface(), p)
		}
	}
}

// setting checks one value against its rules.
func (v *validator) setting(f *field, value any, path string) {
	for _, r := range f.rules {
		if err := r(value); err != nil {
			v.fail(path, err)
		}
	}
}

// list checks each entry, then the settings that must differ between
// entries.
func (v *validator) list(f *field, entries reflect.Value, path string) {
	for i := range entries.Len() {
		v.section(f.fields, entries.Index(i), indexPath(path, i))
	}
	for _, u := range f.fields {
		if u.unique {
			v.unique(u, entries, path)
		}
	}
}

// unique reports an entry whose setting u has the value of an earlier
// entry, naming both. Empty values are left to the setting's own rules.
func (v *validator) unique(u *field, entries reflect.Value, path string) {
	seen := make(map[string]int, entries.Len())
	for i := range entries.Len() {
		value := fmt.Sprint(entries.Index(i).Field(u.index).Interface())
		if value == "" {
			continue
		}
		if j, dup := seen[value]; dup {
			v.fail(joinPath(indexPath(path, i), u.key), fmt.Errorf("%q is also %s", value, joinPath(indexPath(path, j), u.key)))
			continue
		}
		seen[value] = i
	}
}

// tls checks the certificate and key come as a pair.
func (v *validator) tls(t TLS) {
	if t.CertFile == "" && t.KeyFile != "" {
		v.fail("tls.cert_file", errors.New("must be set when tls.key_file is set"))
	}
	if t.KeyFile == "" && t.CertFile != "" {
		v.fail("tls.key_file", errors.New("must be set when tls.cert_file is set"))
	}
	if t.ACME.Enabled() && t.CertFile != "" {
		v.fail("tls.acme.domains", errors.New("set together with tls.cert_file: certificates come from files or from ACME, choose one"))
	}
	if t.ACME.Enabled() && t.ACME.CacheDir == "" {
		v.fail("tls.acme.cache_dir", errors.New("must be set when tls.acme.domains is set: without it every restart asks the ACME server for new certificates, and Let's Encrypt limits how often"))
	}
}

// backends reports a node given two cluster backends: it joins one.
func (v *validator) backends(r Redis, n NATS) {
	if r.URL != "" && n.URL != "" {
		v.fail("nats.url", errors.New("set together with redis.url: a cluster runs on one backend, choose Redis or NATS"))
	}
}

// proxies reports a PROXY protocol that no peer may send.
func (v *validator) proxies(c *Config) {
	if c.ProxyProtocol && len(c.TrustedProxies) == 0 {
		v.fail("proxy_protocol", errors.New("needs trusted_proxies: the addresses of the load balancers that send the header"))
	}
}
