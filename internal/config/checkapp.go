package config

import (
	"errors"
	"reflect"
)

// CheckApp fills a's unset settings with their defaults and checks it with
// the rules a file's apps[] entry passes, so an app from a database or the
// admin API is held to exactly the file's standard. Errors name the setting
// by its key ("config: secret: must not be empty"). Uniqueness across apps
// is the caller's to check.
func CheckApp(a *App) error {
	fields := appFields()
	x := reflect.ValueOf(a).Elem()
	fillDefaults(fields, x)
	var v validator
	v.section(fields, x, "")
	return errors.Join(v.errs...)
}

// appFields returns the settings of one entry of apps[].
func appFields() []*field { return find(schema(), "apps").fields }

// CheckName reports why s cannot be an app's id or key (the rule of
// apps[].id and apps[].key), or nil if it can. It lets a store refuse a name
// no valid app can have without asking its database.
func CheckName(s string) error { return name(s) }
