# The POAP bot as one static binary in a minimal image.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) -t poapbot .
#   docker run -v poapbot-data:/data -e DISCORD_TOKEN=... -p 8080:8080 poapbot
#
# With no DATABASE_URL override the bot keeps its SQLite file (and the key
# file generated beside it) in the /data volume.

FROM golang:1.26-bookworm AS build
WORKDIR /src

# Modules first, in a layer of their own: it is rebuilt only when go.mod or
# go.sum change, not on every source edit.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
ARG VERSION=dev
# CGO_ENABLED=0: both database drivers are pure Go, so the binary is static
# and runs on an image with no C library.
RUN CGO_ENABLED=0 go build -trimpath \
        -ldflags="-s -w -X main.version=${VERSION}" \
        -o /out/bot ./cmd/bot \
    && mkdir -p /out/data

# distroless/static: CA certificates (the bot calls Discord, Telegram and the
# POAP API over TLS), tzdata and a "nonroot" user (65532), and nothing else:
# no shell, no package manager, so nothing to patch but the bot itself.
FROM gcr.io/distroless/static-debian12:nonroot

COPY --from=build /out/bot /bot
# The data directory must belong to the runtime user: a fresh named volume
# copies the ownership of the image's /data.
COPY --from=build --chown=65532:65532 /out/data /data

USER 65532:65532
WORKDIR /data
VOLUME /data

ENV DATABASE_URL=sqlite:/data/bot.db \
    HTTP_ADDR=:8080
EXPOSE 8080

# No HEALTHCHECK: distroless has no shell, curl or wget to run one. Probe
# GET /healthz (liveness) and GET /readyz (readiness) on port 8080 from the
# orchestrator instead (Kubernetes httpGet probes, a load balancer check).

ENTRYPOINT ["/bot"]
