// Vite configuration of the web app. web/build.ts builds with it (`npm start`, `npm run build:web`, the e2e
// tests' global setup); `npx vite --config web/vite.config.ts` serves it for development, with /api and /v1
// proxied to a till server on :3000 (`npm start` in another terminal).
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { defineConfig, type UserConfig } from "vite";

export const webRoot = fileURLToPath(new URL(".", import.meta.url));

export const webConfig: UserConfig = {
  root: webRoot,
  // no public/ folder: everything the pages load is a hashed file under /assets/
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
  },
  server: {
    proxy: {
      "/api": "http://localhost:3000",
      "/v1": "http://localhost:3000",
    },
  },
};

export default defineConfig(webConfig);
