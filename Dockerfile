# syntax=docker/dockerfile:1
# Production image of the payments engine: build with the dev dependencies, run without them, as the
# unprivileged `node` user. Postgres and Redis come from outside (DATABASE_URL, REDIS_URL); see
# docker-compose.yml and docs/operations.md.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-slim
# The main thread's heap limit just under 2 GB, as `npm start` sets it: V8 then lets the old
# generation grow to 2x its live set instead of 4x (docs/operations.md, "Memory"). An operator's own
# NODE_OPTIONS (docker run -e NODE_OPTIONS=...) replaces it.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=2047 \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The webhook verify helper: dist/src/index.js re-exports it as payments-engine/webhooks.
COPY --from=build /app/packages ./packages
# SQL migrations (and any other non-TypeScript assets) are read from src/ at run time.
COPY --from=build /app/src ./src
# The docs are served as written at /docs/<file>.md and listed on GET / (src/http/routes/home.ts).
COPY --from=build /app/docs ./docs
# DATA_DIR is only used by the embedded Postgres when DATABASE_URL is unset (not for production).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# /v2/health answers 200 while Postgres is reachable (status ok or degraded) and 503 when it is not.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/v2/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: stop accepting, finish in-flight work, drain mailboxes.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
