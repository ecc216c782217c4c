# One image for every service; docker-compose picks the process by command.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium ffmpeg fonts-liberation ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages ./packages
COPY services ./services
COPY edge ./edge
COPY proto ./proto
COPY buf.yaml buf.gen.yaml tsconfig.json ./
COPY scripts ./scripts
RUN npm install --no-audit --no-fund && npx buf generate
ENV NODE_ENV=production
USER node
CMD ["node", "--import", "tsx", "edge/src/main.ts"]
