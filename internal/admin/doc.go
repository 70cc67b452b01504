// Package admin serves the admin API: /admin/apps lists, shows, creates,
// changes and deletes apps, for a control panel or `roost apps`.
//
// Every request needs "Authorization: Bearer <admin.token>", compared in
// constant time. Apps are JSON objects with the configuration file's keys;
// a new or changed app passes exactly the file's checks. A secret is
// generated when none is given and is returned only in the answer to the
// POST that created it. When apps come only from the configuration, the
// API answers reads and refuses writes with 403.
package admin
