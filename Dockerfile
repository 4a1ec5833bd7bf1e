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
 && useradd --system --create-home --home-dir /var/lib/gpumarket gpumarket
COPY --from=build /src/target/release/gpumarket /usr/local/bin/gpumarket
USER gpumarket
WORKDIR /var/lib/gpumarket
ENV GPUMARKET_LISTEN=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["gpumarket"]
CMD ["serve"]
