# labflow: one image for the API, the management API, the worker and the migrate/seed scripts.
#   docker build -t labflow .
#   docker run --rm labflow node dist/src/main.js        (the default command)
# docker-compose.yml runs each process from this image.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dependency install scripts are not needed (see scripts/stack.sh). `npm ci` refuses a lock file
# that lacks some other platforms' optional packages; `npm install --no-save` then installs
# from the same lock without rewriting it.
RUN npm ci --ignore-scripts --no-audit --no-fund \
  || npm install --no-save --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY scripts ./scripts
# npm run build: tsc, then the workflow bundles (dist/workflow-bundle.js; -traced.js for workers that trace) the production worker
# loads instead of bundling at every start.
RUN npm run build && test -s dist/workflow-bundle.js && test -s dist/workflow-bundle-traced.js \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    API_HOST=0.0.0.0
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8000 8001
# --max-semi-space-size=32: the API's young generation for large ingestion requests;
# --no-allocation-site-pretenuring: short-lived rows stay young (scripts/up.sh says why for both).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "dist/src/main.js"]
