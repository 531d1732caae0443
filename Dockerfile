# The gardener binary in a minimal image, for the daemon (gardener daemon --landscape /landscape)
# and for pipelines. The binary is static (no cgo), so the distroless static base, which has no
# shell and no package manager, is all it needs; it runs as the base image's non-root user.
#
#   docker build -t gardener:dev --build-arg VERSION=$(git describe --tags --always) .

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gardener ./cmd/gardener

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gardener /usr/local/bin/gardener
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/gardener"]
CMD ["daemon", "--landscape", "/landscape"]
