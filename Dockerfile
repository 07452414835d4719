# One image for both halves of the gateway: `npm run api` (default) and `npm run worker`.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
USER node
EXPOSE 8080
CMD ["npm", "run", "api"]
