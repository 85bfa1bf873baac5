# tsbench as a container image: a static binary on an empty base.
#   docker build -t tsbench .
#   docker run --rm -v "$PWD:/work" tsbench -c /work/config.properties --set RESULTS_DIR=/work/results
# The binary needs no C library (SQLite is pure Go); the CA certificates are
# for HTTPS to Elasticsearch.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/bench ./cmd/bench \
 && mkdir -p /out/results /out/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/bench /bench
COPY --from=build --chown=65532:65532 /out/results /results
COPY --from=build --chown=65532:65532 /out/tmp /tmp
USER 65532:65532
ENV TSBENCH_RESULTS_DIR=/results
WORKDIR /results
ENTRYPOINT ["/bench"]
