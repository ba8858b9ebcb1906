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
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# gateway, per-node probes (HEALTH_PORT), Prometheus (METRICS_PORT)
EXPOSE 8040 3001 3030
CMD ["node", "node_modules/moleculer/bin/moleculer-runner.js", "--config", "dist/moleculer.config.js"]
