# The one gpumarket binary in a small image. `serve` by default; `worker`, `migrate`, `sim`
# and the rest are the same image with another command.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin gpumarket

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 gpumarket \
 && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/gpumarket gpumarket
COPY --from=build /src/target/release/gpumarket /usr/local/bin/gpumarket
# Numeric, so Kubernetes can tell it is not root (runAsUser 10001 in deploy/kubernetes).
USER 10001
# What the process writes: its home (SQLite's file when no database URL is set) and /tmp.
# deploy/kubernetes mounts an emptyDir on each, the root filesystem being read-only.
WORKDIR /var/lib/gpumarket
ENV GPUMARKET_LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["gpumarket"]
CMD ["serve"]
