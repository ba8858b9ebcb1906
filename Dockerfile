# One image for every service; each container picks its services with SERVICES=...
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the embedded store) builds from its sources where its prebuilt binary cannot be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production SERVICEDIR=dist/services LOG_FORMAT=json
# V8 heap limits (docs/library.md "Listening at size"). Without a ceiling V8 lets garbage grow the heap far past
# what is live before it collects (RSS 1.4 GB after a burst of reads at 200,000 episodes, ~280 MB live).
# 768 MB of old space bounds RSS near 1 GB at the very worst (old space + 2 x 16 MB young + ~100 MB of
# code and buffers). Semi-spaces of 16 MB, not 64: the young generation grows to its ceiling while the
# catalogue is built and stays there, and 2 x 64 MB of it was ~80 MB of RSS at start and at peak
# (bench/RESULTS.md "Memory of the embedded store"), with no measurable change in the reads' CPU.
# Raise the old space with the library (~1.4 KB of live heap a stored episode, twice that as room) and
# keep the container's memory limit above old space + 250 MB; override per container.
ENV NODE_OPTIONS="--max-old-space-size=768 --max-semi-space-size=16"
# yt-dlp reads video channels (the search service's vidsite index; YTDLP_PATH). Debian's build ages:
# mount or install a newer one if a video site changes its pages.
RUN apt-get update && apt-get install -y --no-install-recommends yt-dlp && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# gateway, search gateway (SEARCH_PORT), per-node probes (HEALTH_PORT), Prometheus (METRICS_PORT)
EXPOSE 8040 5000 3001 3030
CMD ["node", "node_modules/moleculer/bin/moleculer-runner.js", "--config", "dist/moleculer.config.js"]
