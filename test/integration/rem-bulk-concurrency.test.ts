import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestDocument } from '../generated/graphql.js';
import { newUser, postGraphQL } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';

// A bulk ingest embeds in chunks with yields between them and writes in one short transaction
// (PGlite's in a worker thread), so other requests keep being answered while it runs. Asserted by
// order, not time: reads sent one after another, each after the previous answer, while one ingest
// of 1000 rows is in flight, are answered before it is.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAX_LIST_ARGUMENT: '1000', MAX_REQUEST_BYTES: String(16 * 1024 * 1024) });
});
afterAll(async () => {
  await server?.stop();
});

const words = 'memory graph entity moment resource session agent vector search lookup traverse fuzzy'.split(' ');
const content = (i: number) => Array.from({ length: 240 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');

describe('bulk ingest does not stall other requests', () => {
  it('/healthz and a GraphQL read are answered, repeatedly, while a 1000-row ingest runs', async () => {
    const alice = newUser(server.url);
    const seed = await alice.data(IngestDocument, { items: [{ entity: { key: 'before the bulk', content: 'a row to read' } }] });
    const id = seed.ingest.__typename === 'IngestSuccess' ? seed.ingest.entities[0]!.id : '';
    const read = { query: 'query($id: ID!) { node(id: $id) { id ... on Entity { key } } }', variables: { id } };

    let ingestDone = false;
    const ingest = alice
      .data(IngestDocument, { items: Array.from({ length: 1000 }, (_, i) => ({ entity: { key: `bulk ${i}`, content: content(i) } })) })
      .finally(() => (ingestDone = true));
    const origin = new URL(server.url).origin;
    // Each loop sends its next request only once the previous one is answered, and counts the
    // answers that came while the ingest had not: a server stalled by the ingest answers at most one.
    const answeredDuring = async (ask: () => Promise<void>) => {
      let answered = 0;
      while (!ingestDone) {
        await ask();
        if (!ingestDone) answered += 1;
      }
      return answered;
    };
    const [health, reads, result] = await Promise.all([
      answeredDuring(async () => {
        const res = await fetch(`${origin}/healthz`);
        expect(res.status).toBe(200);
      }),
      answeredDuring(async () => {
        const res = await postGraphQL<{ node: { key: string } | null }>(server.url, read, alice.headers);
        expect(res.body.data?.node?.key).toBe('before-the-bulk');
      }),
      ingest,
    ]);
    expect(result.ingest.__typename).toBe('IngestSuccess');
    expect(health).toBeGreaterThanOrEqual(3);
    expect(reads).toBeGreaterThanOrEqual(2);
  });
});
