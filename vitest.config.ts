import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Unit suites run once; integration suites run twice, against embedded PGlite and against the
// PostgreSQL server named by TEST_POSTGRES_URL (a fresh database is created for each run).
// REMGRAPH_TEST_BACKENDS=pglite (or postgres) narrows a local run to one backend.
const backends = (process.env.REMGRAPH_TEST_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim());

export default defineConfig({
  resolve: {
    // Node (and so every dependency) loads graphql's CommonJS entry; Vite would pick its "module"
    // entry for our own files, and two copies of graphql refuse each other's types.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // Generous: suites that start real server processes share two cores with everything else.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      ...backends.map((backend) => ({
        extends: true as const,
        test: {
          name: backend,
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_BACKEND: backend },
          globalSetup: ['test/support/global-setup.ts'],
        },
      })),
    ],
  },
});
