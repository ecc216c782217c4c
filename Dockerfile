# syntax=docker/dockerfile:1
# Images of the Creative Validation API (README, "Deployment"). Three targets from one build, so no container carries
# tools it does not run — only the tag scanner has Chromium, only the media prober has ffmpeg:
#
#   docker build --target service      -t cva:dev .               # edge, auth, report-store, zip-analyzer, vast-analyzer
#   docker build --target tag-scanner  -t cva-tag-scanner:dev .
#   docker build --target media-prober -t cva-media-prober:dev .
#
# docker-compose.yml builds all three; deploy/k8s/ names them. A container runs the process its CVA_SERVICE names
# (the two scanner images set it), with plain node on the bundles of `npm run build`; nothing is compiled at run time.
#
# Base: Node 24 LTS (supported until 2028-04) on Debian 12 — the Debian release the test suite runs on, so Chromium
# and ffmpeg behave as tested (docs/design.md lists version traps). The tag is exact; CI pins the digest as well:
#   docker build --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:<digest> ...
# (`docker buildx imagetools inspect node:24.21.0-bookworm-slim` prints it). Debian packages are not version-pinned:
# bookworm's security updates replace old versions, so a rebuild picks up the fixes; pin by rebuilding on a schedule.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# ---- build: every dependency (lockfile-exact), generated code, the bundles --------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
COPY packages/cli/package.json packages/cli/
COPY packages/contracts/package.json packages/contracts/
COPY packages/creative-kind/package.json packages/creative-kind/
COPY packages/imaging/package.json packages/imaging/
COPY packages/platform/package.json packages/platform/
COPY packages/spec-sets/package.json packages/spec-sets/
COPY services/auth/package.json services/auth/
COPY services/report-store/package.json services/report-store/
COPY services/tag-scanner/package.json services/tag-scanner/
COPY services/zip-analyzer/package.json services/zip-analyzer/
COPY services/vast-analyzer/package.json services/vast-analyzer/
COPY services/media-prober/package.json services/media-prober/
COPY edge/package.json edge/
RUN npm ci --no-audit --no-fund
COPY buf.yaml buf.gen.yaml tsconfig.json ./
COPY proto ./proto
COPY packages ./packages
COPY services ./services
COPY edge ./edge
COPY scripts ./scripts
RUN npx buf generate && node --import tsx scripts/build.ts

# ---- runtime dependencies: production packages only, exactly the lockfile's ---------------------------------------
FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY --from=build /src/packages/cli/package.json packages/cli/
COPY --from=build /src/packages/contracts/package.json packages/contracts/
COPY --from=build /src/packages/creative-kind/package.json packages/creative-kind/
COPY --from=build /src/packages/imaging/package.json packages/imaging/
COPY --from=build /src/packages/platform/package.json packages/platform/
COPY --from=build /src/packages/spec-sets/package.json packages/spec-sets/
COPY --from=build /src/services/auth/package.json services/auth/
COPY --from=build /src/services/report-store/package.json services/report-store/
COPY --from=build /src/services/tag-scanner/package.json services/tag-scanner/
COPY --from=build /src/services/zip-analyzer/package.json services/zip-analyzer/
COPY --from=build /src/services/vast-analyzer/package.json services/vast-analyzer/
COPY --from=build /src/services/media-prober/package.json services/media-prober/
COPY --from=build /src/edge/package.json edge/
# The workspaces themselves are inside the bundles; their links in node_modules would only dangle (and the `cva` CLI
# is a developer's and a pipeline's tool, not part of a service).
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/@cva node_modules/.bin/cva && npm cache clean --force

# ---- service: the common runtime (edge, auth, report-store, zip-analyzer, vast-analyzer) ----------------------------
FROM ${NODE_IMAGE} AS service
# tini is PID 1 where nothing else is (Kubernetes): it forwards SIGTERM and reaps the orphans Chromium and ffmpeg
# leave. Under compose (init: true) Docker's init is PID 1 and tini, with -s, a subreaper below it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 cva \
 && useradd --system --uid 10001 --gid cva --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin cva \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
WORKDIR /app
# Owned by root and read-only to the service user: a compromised process cannot change the code it runs.
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /src/package.json ./
COPY --from=build /src/dist ./dist
# HOME and every scratch file under /tmp, the one writable place (a tmpfs under compose and Kubernetes, whose root
# filesystem is read-only).
ENV NODE_ENV=production HOME=/tmp
# Numeric, so Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
# Internal services: grpc.health.v1 on their gRPC port; the edge: GET /healthz (scripts/container/healthcheck.ts).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/dist/healthcheck.js"]
ENTRYPOINT ["/usr/bin/tini", "-s", "--"]
CMD ["node", "/app/dist/main.js"]

# ---- tag-scanner: + Chromium ------------------------------------------------------------------------------------------
# Runs as the non-root user, so Chromium keeps its own sandbox on (services/tag-scanner/src/sandbox.ts): it needs
# unprivileged user namespaces from the kernel and a seccomp profile that allows creating them (Docker's and
# containerd's defaults refuse clone(CLONE_NEWUSER) without CAP_SYS_ADMIN): deploy/seccomp/chromium.json, which
# compose and deploy/k8s/ apply. TAG_SCANNER_NO_SANDBOX=1 is the explicit, logged opt-out where that is impossible.
FROM service AS tag-scanner
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation iproute2 \
 && rm -rf /var/lib/apt/lists/*
USER 10001:10001
ENV CVA_SERVICE=tag-scanner CHROMIUM_PATH=/usr/bin/chromium

# ---- media-prober: + ffmpeg -------------------------------------------------------------------------------------------
FROM service AS media-prober
USER root
# /scratch: where downloads go (MEDIA_PROBER_WORK_DIR) — a volume under compose, an emptyDir in Kubernetes; a new
# Docker volume takes this directory's owner. util-linux (already in the base) provides prlimit, which every ffprobe/ffmpeg
# runs under (services/media-prober/src/exec.ts); the process refuses to start without it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg util-linux \
 && rm -rf /var/lib/apt/lists/* \
 && install -d -o 10001 -g 10001 -m 0700 /scratch
USER 10001:10001
ENV CVA_SERVICE=media-prober MEDIA_PROBER_WORK_DIR=/scratch
