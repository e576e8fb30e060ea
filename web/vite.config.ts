import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The chat app is built into web/dist by scripts/build.mjs (on install and on the first start) and
// served by the server at /. `npm run dev:web` serves it with hot reload, proxying /graphql to a
// server on port 4000.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // Preact's automatic JSX runtime, without a framework plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 400 },
  server: { proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } } },
});
