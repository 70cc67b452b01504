package auth

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxClockSkew is how far auth_timestamp may be from the server's clock
// (Pusher docs, "HTTP API reference": 600 seconds).
const MaxClockSkew = 600 * time.Second

// The query parameters of a signed request (Pusher docs, "HTTP API
// reference", "Authentication").
const (
	ParamKey       = "auth_key"
	ParamTimestamp = "auth_timestamp"
	ParamVersion   = "auth_version"
	ParamBodyMD5   = "body_md5"
	ParamSignature = "auth_signature"
)

// RequestError is why a signed HTTP API request was refused: Status is the
// HTTP status to answer with (400 malformed, 401 bad authentication) and
// Message a sentence for the response body. Message never contains the
// signature the server expected.
type RequestError struct {
	Status  int
	Message string
}

// Error returns the message, so a RequestError reads well in logs.
func (e *RequestError) Error() string { return e.Message }

// badRequest and unauthorized build the two kinds of RequestError.
func badRequest(format string, args ...any) error {
	return &RequestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func unauthorized(format string, args ...any) error {
	return &RequestError{http.StatusUnauthorized, fmt.Sprintf(format, args...)}
}

// CheckKey returns a 401 RequestError unless the request's auth_key is key.
// The caller maps the app id in the path to an app and passes its key;
// VerifyRequest then checks the signature with that app's secret.
func CheckKey(query url.Values, key string) error {
	got := query.Get(ParamKey)
	if got == "" {
		return unauthorized("Missing auth_key.")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(key)) != 1 {
		return unauthorized("Invalid auth_key: it is not the key of this app.")
	}
	return nil
}

// VerifyRequest checks the authentication of an HTTP API request as the
// Pusher docs ("HTTP API reference", "Generating authentication signatures")
// define it: VerifyQuery, then CheckBodyMD5. method is the HTTP method, path
// the unescaped URL path. It returns nil or a *RequestError.
func VerifyRequest(method, path string, query url.Values, body []byte, secret string, now time.Time) error {
	if err := VerifyQuery(method, path, query, len(body) > 0, secret, now); err != nil {
		return err
	}
	return CheckBodyMD5(query, body)
}

// VerifyQuery checks everything of a request's authentication that does not
// need its body: no parameter given twice (400); auth_key present;
// auth_version 1.0; auth_timestamp an integer within MaxClockSkew of now;
// body_md5 present when hasBody; auth_signature the hex HMAC-SHA256, keyed by
// secret, of StringToSign. The signature covers the query, body_md5 included,
// but not the body itself, so a server can refuse a forged or stale request
// before it reads a byte of the body, then check the body with CheckBodyMD5.
// It returns nil or a *RequestError.
func VerifyQuery(method, path string, query url.Values, hasBody bool, secret string, now time.Time) error {
	if err := checkDuplicates(query); err != nil {
		return err
	}
	if query.Get(ParamKey) == "" {
		return unauthorized("Missing auth_key.")
	}
	if v := query.Get(ParamVersion); v != "1.0" {
		return unauthorized("auth_version must be 1.0, got %q.", v)
	}
	if err := checkTimestamp(query.Get(ParamTimestamp), now); err != nil {
		return err
	}
	if _, ok := query[ParamBodyMD5]; hasBody && !ok {
		return errMissingBodyMD5
	}
	return checkSignature(method, path, query, secret)
}

// errMissingBodyMD5 refuses a request that has a body but does not sign it.
var errMissingBodyMD5 = &RequestError{http.StatusUnauthorized, "Missing body_md5: a request with a body must sign its MD5."}

// checkDuplicates refuses a parameter given twice, including twice under
// names that differ only in case: the signature lower-cases names, so either
// would make the signed string ambiguous.
func checkDuplicates(query url.Values) error {
	names := make([]string, 0, len(query))
	for k, vs := range query {
		if len(vs) > 1 {
			return badRequest("Query parameter %q is given %d times; give it once.", k, len(vs))
		}
		names = append(names, strings.ToLower(k))
	}
	slices.Sort(names)
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			return badRequest("Query parameter %q is given twice (names are case-insensitive).", names[i])
		}
	}
	return nil
}

// checkTimestamp requires ts to be Unix seconds within MaxClockSkew of now.
func checkTimestamp(ts string, now time.Time) error {
	if ts == "" {
		return unauthorized("Missing auth_timestamp.")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return unauthorized("auth_timestamp must be an integer number of seconds, got %q.", ts)
	}
	skew := now.Unix() - sec
	if skew > int64(MaxClockSkew/time.Second) || -skew > int64(MaxClockSkew/time.Second) {
		return unauthorized("auth_timestamp %d is more than %d seconds from server time %d; check your clock.",
			sec, int64(MaxClockSkew/time.Second), now.Unix())
	}
	return nil
}

// CheckBodyMD5 requires body_md5 for a non-empty body and, when present,
// requires it to match the body. It returns nil or a *RequestError.
func CheckBodyMD5(query url.Values, body []byte) error {
	got, ok := query[ParamBodyMD5]
	if !ok {
		if len(body) > 0 {
			return errMissingBodyMD5
		}
		return nil
	}
	sum := md5.Sum(body)
	if !strings.EqualFold(got[0], hex.EncodeToString(sum[:])) {
		return unauthorized("body_md5 does not match the MD5 of the request body.")
	}
	return nil
}

// checkSignature compares auth_signature with the expected one in constant
// time. Its error shows the string to sign, which the client can compute
// anyway, but never the expected signature.
func checkSignature(method, path string, query url.Values, secret string) error {
	sig := query.Get(ParamSignature)
	if sig == "" {
		return unauthorized("Missing auth_signature.")
	}
	toSign := StringToSign(method, path, query)
	if !equalHex(mac(secret, toSign), sig) {
		return unauthorized("Invalid auth_signature: sign %q with HMAC-SHA256 and your app secret.", toSign)
	}
	return nil
}

// StringToSign returns what an HTTP API request signs: the upper-case
// method, the path and the query, one per line, where the query is every
// parameter but auth_signature as name=value, names lower-cased, sorted by
// name, joined by '&', nothing escaped. Only the first value of a name is
// used; VerifyRequest refuses repeated names before it gets here.
func StringToSign(method, path string, query url.Values) string {
	pairs := make([]string, 0, len(query))
	for k, vs := range query {
		lk := strings.ToLower(k)
		if lk == ParamSignature || len(vs) == 0 {
			continue
		}
		pairs = append(pairs, lk+"="+vs[0])
	}
	slices.SortFunc(pairs, compareNames)
	return strings.ToUpper(method) + "\n" + path + "\n" + strings.Join(pairs, "&")
}

// compareNames orders "name=value" pairs by name alone, so that a name that
// is a prefix of another sorts first whatever the values.
func compareNames(a, b string) int {
	an, _, _ := strings.Cut(a, "=")
	bn, _, _ := strings.Cut(b, "=")
	return strings.Compare(an, bn)
}

// SignRequest returns a copy of query signed as a Pusher server SDK signs
// it: auth_key, auth_timestamp (now), auth_version 1.0, body_md5 when body is
// non-empty (removed otherwise) and auth_signature. Tests and benchmarks use
// it to make requests VerifyRequest accepts.
func SignRequest(method, path string, query url.Values, body []byte, key, secret string, now time.Time) url.Values {
	q := make(url.Values, len(query)+5)
	for k, vs := range query {
		q[k] = slices.Clone(vs)
	}
	q.Del(ParamSignature)
	q.Set(ParamKey, key)
	q.Set(ParamTimestamp, strconv.FormatInt(now.Unix(), 10))
	q.Set(ParamVersion, "1.0")
	q.Del(ParamBodyMD5)
	if len(body) > 0 {
		sum := md5.Sum(body)
		q.Set(ParamBodyMD5, hex.EncodeToString(sum[:]))
	}
	q.Set(ParamSignature, Sign(secret, StringToSign(method, path, q)))
	return q
}
