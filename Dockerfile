# One image for every service; each container picks its services with SERVICES=...
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production SERVICEDIR=dist/services LOG_FORMAT=json
# yt-dlp reads video channels (the search service's vidsite index; YTDLP_PATH). Debian's build ages:
# mount or install a newer one if a video site changes its pages.
RUN apt-get update && apt-get install -y --no-install-recommends yt-dlp && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# gateway, search gateway (SEARCH_PORT), per-node probes (HEALTH_PORT), Prometheus (METRICS_PORT)
EXPOSE 8040 5000 3001 3030
CMD ["node", "node_modules/moleculer/bin/moleculer-runner.js", "--config", "dist/moleculer.config.js"]
