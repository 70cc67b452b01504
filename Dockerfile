# roost container image: one static binary on distroless/static, run as a
# non-root user. Build from the repository root:
#
#   docker build --build-arg VERSION=1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) -t roost:1.2.3 .
#
# Run it with an app of your own (the image listens on 0.0.0.0, and roost
# refuses to serve its development app, whose secret is public, on a
# non-loopback address):
#
#   docker run --rm -p 6001:6001 --ulimit nofile=1048576:1048576 \
#     -e ROOST_APP_ID=my-app -e ROOST_APP_KEY=my-key -e ROOST_APP_SECRET="$(openssl rand -hex 32)" \
#     roost:1.2.3
#
# or mount a config file: -v ./roost.yaml:/etc/roost/roost.yaml:ro and the
# command `serve --config /etc/roost/roost.yaml`. docs/deploy.md has the rest.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS TARGETARCH VERSION COMMIT SOURCE_DATE_EPOCH
# make static holds the release build flags (CGO_ENABLED=0, -trimpath, the
# version stamps), so the image's binary is built exactly as a release's.
RUN make static GOOS="$TARGETOS" GOARCH="$TARGETARCH" OUT=/out/roost VERSION="$VERSION" COMMIT="$COMMIT"

# distroless/static: CA certificates (for rediss://) and tzdata, no shell,
# no package manager; user 65532 is its "nonroot".
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/roost /usr/local/bin/roost
ENV ROOST_ADDR=0.0.0.0:6001 \
    ROOST_LOG_FORMAT=json
EXPOSE 6001
USER 65532:65532
# SIGTERM drains: new connections are refused, every client is told to
# reconnect elsewhere (close code 4200) and roost exits within
# shutdown_timeout (10 s). Give `docker stop -t` / stop_grace_period more.
STOPSIGNAL SIGTERM
# The image has no shell or curl: roost probes itself. If you change the
# port in ROOST_ADDR, override this health check to match.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/roost", "probe", "http://127.0.0.1:6001/up"]
# Open files: roost holds one descriptor per connection and raises its soft
# limit to the hard limit at start, so the hard nofile limit the container
# gets is its connection ceiling. Docker's default depends on the daemon
# (often 1048576, on some hosts 1024:524288): set it explicitly with
# --ulimit nofile=N:N (compose: ulimits) and read process_max_fds on /metrics.
ENTRYPOINT ["/usr/local/bin/roost"]
CMD ["serve"]
