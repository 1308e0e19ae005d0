# The karmada-lite image: the standalone executable (Node's single executable application, `npm run build`)
# on a distroless base, run as a non-root user. No Node.js, shell or package manager in the final image.
#
#   node scripts/image.mjs build            # docker build -t karmada-lite:<package.json version> .
#   docker build -t karmada-lite:0.1.0 .    # the same by hand
#
# deploy/controller/controller.yaml and the Helm chart (deploy/chart) run the tag this build produces;
# `node scripts/image.mjs check` (CI) keeps the three in step and lints this file.

# --- build: the same commands as a checkout (`npm ci`, `npm run build`) --------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /src
# The lock file first, so that the dependency layer is cached while only sources change.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && ./dist/karmada-lite --version

# --- run ----------------------------------------------------------------------------------------------------
# cc: glibc, libstdc++ and libgcc, which the Node.js runtime inside the executable links against.
FROM gcr.io/distroless/cc-debian12:nonroot
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="karmada-lite" \
      org.opencontainers.image.description="A Karmada-compatible multi-cluster policy engine in one binary" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /src/dist/karmada-lite /karmada-lite
# 65532 is distroless's nonroot user; numeric, so runAsNonRoot can verify it without reading /etc/passwd.
USER 65532:65532
ENTRYPOINT ["/karmada-lite"]
CMD ["--help"]
