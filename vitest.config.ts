import { defineConfig } from 'vitest/config';

// Unit suites run once; integration suites run twice, against embedded PGlite and against the
// PostgreSQL server named by TEST_POSTGRES_URL (a fresh database is created for each run).
// REMGRAPH_TEST_BACKENDS=pglite (or postgres) narrows a local run to one backend.
const backends = (process.env.REMGRAPH_TEST_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim());

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      ...backends.map((backend) => ({
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
