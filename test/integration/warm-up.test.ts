import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../support/log-capture.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * A server's first turn used to pay, on a user's request, for Prisma's client starting its query
 * compiler (WebAssembly on the server's thread, about 100-150 ms during which every other request
 * waited) and for the database reading the catalog entries of the tables a turn touches (issue 41).
 * The start-up now does that before the server listens: by the time it does, Prisma has run an
 * interactive transaction and a read of each table of a turn's path, and the log says how long it took.
 */
const TURN_TABLES = ['Session', 'Message', 'Turn', 'TurnEventChunk', 'LlmCall', 'QuotaStart', 'Agent'];

let server: TestServer;
const seen: { model?: string; operation: string }[] = [];
let seenAtListen: { model?: string; operation: string }[] = [];
const { logger, lines } = capturingLogger();
beforeAll(async () => {
  server = await startTestServer({}, { logger, observe: (query) => seen.push(query) });
  seenAtListen = [...seen];
});
afterAll(async () => {
  await server.stop();
});

describe('start-up warm-up', () => {
  it('runs a transaction and reads each table of a turn before the server listens', () => {
    expect(seenAtListen.some((query) => query.operation === '$transaction')).toBe(true);
    const models = new Set(seenAtListen.map((query) => query.model));
    expect(TURN_TABLES.filter((model) => !models.has(model))).toEqual([]);
    const warmed = lines().find((line) => line.msg === 'warmed up the database path of a turn');
    expect(warmed?.warmUpMs).toEqual(expect.any(Number));
  });

  it('leaves the server answering', async () => {
    expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
  });
});
