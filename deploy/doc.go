// Package deploy holds the files that run roost in production and no code:
// the compose file, nginx, Kubernetes, systemd and sysctl configuration, the
// Grafana dashboard and the Prometheus alert rules (the Dockerfile lives at
// the repository root, where `docker build .` finds it).
//
// Its tests hold those files to roost itself: the ports, probe paths,
// timeouts, ROOST_* variables and metric names they use must be the ones
// roost serves and accepts, checked against roost's own defaults and a
// running roost rather than against copies of them.
package deploy
