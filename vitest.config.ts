import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { CHROMIUM } from './test/browser/chromium.js';

const require = createRequire(import.meta.url);

// Unit suites run once; integration suites run against embedded PGlite and, when TEST_POSTGRES_URL
// names a PostgreSQL server (with pgvector), against it too (a fresh database for each run). The
// multi-instance suite also needs TEST_REDIS_URL; the browser suite needs Debian's chromium. What
// cannot run here is skipped with one line saying how to run it, so `npm test` passes with only Node.
// REMGRAPH_TEST_BACKENDS=pglite (or postgres) narrows a local run to one backend.
const requested = (process.env.REMGRAPH_TEST_BACKENDS ?? 'pglite,postgres').split(',').map((b) => b.trim());
const postgres = Boolean(process.env.TEST_POSTGRES_URL);
const backends = requested.filter((b) => b !== 'postgres' || postgres);
const browser = existsSync(CHROMIUM);

const skipped = [
  requested.includes('postgres') && !postgres && 'PostgreSQL suites (set TEST_POSTGRES_URL=postgresql://… to a server with pgvector)',
  backends.includes('postgres') && !process.env.TEST_REDIS_URL && 'multi-instance Redis suite (set TEST_REDIS_URL=redis://…)',
  !browser && `browser suite (no ${CHROMIUM}: apt-get install chromium)`,
].filter(Boolean);
// Vitest evaluates this file once per project: say it once.
const state = globalThis as { remgraphSkipsShown?: boolean };
if (!state.remgraphSkipsShown) for (const line of skipped) console.log(`\x1b[33mskipped:\x1b[0m ${line}`);
state.remgraphSkipsShown = true;

// Test files share a worker's modules (isolate: false): importing the server's module graph anew for
// each of two hundred files was a fifth of the run. Each file still starts its own servers and
// databases. The files listed here observe module state a file before them may have changed (which
// tokenizers are loaded), so they get a fresh module graph of their own.
const ISOLATED = ['test/integration/turn-budget.test.ts'];

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
    // Vitest's default on two cores is one file at a time; most integration files wait on servers,
    // PostgreSQL and child processes rather than compute, so two at a time roughly halves the run.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      ...backends.flatMap((backend) =>
        [false, true].map((isolate) => ({
          extends: true as const,
          test: {
            name: isolate ? `${backend}-isolated` : backend,
            include: isolate ? ISOLATED : ['test/integration/**/*.test.ts'],
            exclude: isolate ? [] : ISOLATED,
            isolate,
            env: { TEST_BACKEND: backend },
            globalSetup: ['test/support/global-setup.ts'],
            setupFiles: backend === 'postgres' ? ['test/support/file-database.ts'] : [],
          },
        })),
      ),
      ...(browser
        ? [
            {
              extends: true as const,
              test: {
                name: 'browser',
                include: ['test/browser/**/*.test.ts'],
                env: { TEST_BACKEND: 'pglite' },
                globalSetup: ['test/support/global-setup.ts', 'test/browser/build-app.ts'],
                // Chromium shares the machine's cores with every other suite: under the whole run a
                // page took over expect.poll's default second to re-render after a system theme
                // switch (chat.test.ts, once in CI and once here; never alone).
                expect: { poll: { timeout: 10_000 } },
              },
            },
          ]
        : []),
    ],
  },
});
