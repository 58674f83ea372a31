# syntax=docker/dockerfile:1
# Portico's image: one program, two commands. The Helm chart runs `serve` and `operator` from it.
#   docker build -t portico:dev .          (or: make image)
#   docker run --rm -p 8080:8080 -p 9091:9091 -p 9200:9200 -v portico-data:/data portico:dev
# It runs as user 65532 and writes only to /data (and /tmp), so a read-only root filesystem works.
ARG NODE_IMAGE=node:20-bookworm-slim

# better-sqlite3 compiles its native binding when no prebuilt one fits: it needs python3, make, g++.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src

# Compile the TypeScript with every dependency. --omit=peer skips aws-cdk-lib (~220 MB), which
# only the test tooling's helm package names as a peer and nothing here uses.
FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci --omit=peer --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The build also bundles the operator's KubeConfig into dist/vendor/ (see the script).
COPY scripts/bundle-kube-config.ts ./scripts/
RUN npm run build

# Production dependencies only (native binding included), in a stage of their own so the cache
# keeps them until the lock file changes.
FROM toolchain AS prod-deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# npm and yarn are not needed to run Portico: dropping them makes the image smaller and leaves
# fewer packages to patch.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/bin/npm /usr/local/bin/npx \
      /usr/local/lib/node_modules/corepack /usr/local/bin/corepack /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && mkdir -p /data \
 && chown 65532:65532 /data
ENV NODE_ENV=production
# glibc's malloc serves blocks of 128 KiB and more with mmap, returned to the system when freed.
# Left to itself it raises that threshold to the largest such block freed (up to 32 MiB): after
# the first few 3.5 MB _bulk bodies, the search index's arrays, which grow by doubling, come from
# the main heap, and each doubling leaves the old array as a hole the heap keeps: 33-36 MiB of
# resident memory after loading 63,666 documents (issue 21; bench/README.md, "Search server
# memory"). Setting the threshold fixes it at 128 KiB. bench/search-server.ts runs the server with
# the MALLOC_ variables set here, and so does `make run` (the Makefile reads them from here).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=prod-deps /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
USER 65532:65532
EXPOSE 8080 9091 9200
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["serve", "--data.dir=/data"]
