import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../support/log-capture.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Prisma's client starts its query compiler on its first operation (WebAssembly on the server's
 * thread, 100-150 ms during which no other request is served). That was the maintenance sweep's
 * first read right after the server listened, or a user's first request through Prisma (issue 41):
 * the start-up now does it before the server listens, and says how long it took.
 */
let server: TestServer;
const seen: string[] = [];
let seenAtListen: string[] = [];
const { logger, lines } = capturingLogger();
beforeAll(async () => {
  server = await startTestServer({}, { logger, observe: (query) => seen.push(query.operation) });
  seenAtListen = [...seen];
});
afterAll(async () => {
  await server.stop();
});

describe('start-up', () => {
  it("starts Prisma's client with a transaction before the server listens", async () => {
    expect(seenAtListen).toContain('$transaction');
    const started = lines().find((line) => line.msg === "started Prisma's client");
    expect(started?.warmUpMs).toEqual(expect.any(Number));
    expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
  });
});
