/**
 * The web app's build (`npm run build:web`, part of `npm run build`): Preact with Vite, into dist/web, which the
 * gateway serves at "/" (shared/web-app.ts). No inline script or style: the gateway's CSP allows none.
 */
import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [preact()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    // Never inline assets as data: URLs into scripts or styles; small files are fine as files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: { proxy: { "/api": "http://localhost:8040", "/ws": { target: "ws://localhost:8040", ws: true } } },
});
