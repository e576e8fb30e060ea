import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, newUser, wsClient, type Caller } from '../support/client.js';
import { pdfOf } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { IngestFileDocument, IngestProgressDocument, RemQueryDocument, type IngestFileMutation } from '../generated/graphql.js';

let server: TestServer;
const MAX_FILE = 65_536;

beforeAll(async () => {
  server = await startTestServer({ INGEST_MAX_FILE_BYTES: String(MAX_FILE), INGEST_CHUNK_CHARS: '400', INGEST_CHUNK_OVERLAP_CHARS: '60' });
});
afterAll(async () => {
  await server?.stop();
});

/** A GraphQL multipart request (the spec yoga implements), as a browser or curl sends it. */
async function upload(
  user: Caller,
  file: { name: string; bytes: Uint8Array | string; type?: string },
  variables: { key?: string; tags?: string[]; progressId?: string } = {},
  csrf = true,
) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(IngestFileDocument), variables: { file: null, ...variables } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([typeof file.bytes === 'string' ? file.bytes : Buffer.from(file.bytes)], { type: file.type ?? '' }), file.name);
  const res = await fetch(server.url, { method: 'POST', headers: { ...user.headers, ...(csrf ? { 'x-graphql-yoga-csrf': '1' } : {}) }, body: form });
  return { status: res.status, body: (await res.json()) as { data?: IngestFileMutation; errors?: { message: string; extensions?: { code?: string } }[] } };
}

async function ingested(user: Caller, file: Parameters<typeof upload>[1], variables: Parameters<typeof upload>[2] = {}) {
  const res = await upload(user, file, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  const result = res.body.data!.ingestFile;
  if (result.__typename !== 'IngestFileSuccess') throw new Error(JSON.stringify(result));
  return result;
}

const query = async (user: Caller, text: string) => (await user.data(RemQueryDocument, { query: text })).remQuery;

async function chunkRows(user: Caller, parent: string) {
  return server.db.prisma.resource.findMany({
    where: { tenantId: user.headers['x-tenant-id'], userId: user.headers['x-user-id'], metadata: { path: ['parent'], equals: parent } },
    orderBy: { key: 'asc' },
    select: { key: true, name: true, content: true, graphEdges: true },
  });
}

const HANDBOOK = `# Expenses handbook

Everyone files expenses within thirty days of spending.

## Travel

Trains are booked second class. Flights need approval from Sarah Chen when they cost more than 500 euros.

## Meals

Meals on the road are paid up to 40 euros a day.
`;

describe('ingestFile (GraphQL multipart)', () => {
  it('splits Markdown by headings into chunk resources linked to the file, searchable at once', async () => {
    const user = newUser(server.url);
    const result = await ingested(user, { name: 'Expenses Handbook.md', bytes: HANDBOOK, type: 'text/markdown' }, { tags: ['policy'] });
    expect(result).toMatchObject({
      chunks: 3,
      unchanged: false,
      resource: {
        key: 'expenses-handbook',
        name: 'Expenses Handbook.md',
        category: 'file',
        tags: ['policy'],
        metadata: { format: 'markdown', chunks: 3, bytes: Buffer.byteLength(HANDBOOK) },
      },
    });
    expect(result.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const chunks = await chunkRows(user, 'expenses-handbook');
    expect(chunks.map((c) => [c.key, c.name])).toEqual([
      ['expenses-handbook-chunk-1', 'Expenses Handbook.md › Expenses handbook'],
      ['expenses-handbook-chunk-2', 'Expenses Handbook.md › Expenses handbook › Travel'],
      ['expenses-handbook-chunk-3', 'Expenses Handbook.md › Expenses handbook › Meals'],
    ]);
    expect(chunks[1]!.content).toBe('Trains are booked second class. Flights need approval from Sarah Chen when they cost more than 500 euros.');
    expect(chunks[1]!.graphEdges).toEqual([expect.objectContaining({ dst: 'expenses-handbook', rel_type: 'chunk_of' })]);

    const search = await query(user, 'SEARCH "flights need approval from Sarah Chen" FROM resources LIMIT 1');
    expect(search.hits.map((h) => h.key)).toEqual(['expenses-handbook-chunk-2']);
    // Another user of the tenant sees none of it.
    const other = newUser(server.url, user.headers['x-tenant-id']);
    expect((await query(other, 'LOOKUP "expenses-handbook-chunk-2"')).hits).toEqual([]);
  });

  it('changes nothing for the same content, and replaces the chunks for new content', async () => {
    const user = newUser(server.url);
    const first = await ingested(user, { name: 'handbook.md', bytes: HANDBOOK });
    const again = await ingested(user, { name: 'handbook.md', bytes: HANDBOOK });
    expect(again).toMatchObject({ unchanged: true, chunks: 3, contentHash: first.contentHash });

    const shorter = '# Expenses handbook\n\nExpenses are no longer reimbursed.\n';
    const replaced = await ingested(user, { name: 'handbook.md', bytes: shorter });
    expect(replaced).toMatchObject({ unchanged: false, chunks: 1 });
    expect((await chunkRows(user, 'handbook')).map((c) => c.content)).toEqual(['Expenses are no longer reimbursed.']);
    expect((await query(user, 'LOOKUP "handbook-chunk-2"')).hits).toEqual([]);
    expect((await query(user, 'TRAVERSE FROM "handbook"')).hits.map((h) => h.key)).toEqual(['handbook-chunk-1']);
    expect((await query(user, 'SEARCH "flights approval" FROM resources LIMIT 5')).hits.map((h) => h.key)).not.toContain('handbook-chunk-2');
  });

  it('links the file and its chunks both ways, so TRAVERSE leads from one to the other', async () => {
    const user = newUser(server.url);
    const text = ['Invoices', 'Receipts', 'Refunds'].map((topic) => `${topic} are filed by the finance team. `.repeat(6).trim()).join('\n\n');
    const result = await ingested(user, { name: 'filing.txt', bytes: text });
    expect(result.chunks).toBe(3);
    const chunkKeys = ['filing-chunk-1', 'filing-chunk-2', 'filing-chunk-3'];

    const fromFile = await query(user, 'TRAVERSE FROM "filing"');
    expect(fromFile.hits.map((h) => [h.key, h.relType, h.depth, h.path])).toEqual(chunkKeys.map((key) => [key, 'has_chunk', 1, ['filing', key]]));
    const fromChunk = await query(user, 'TRAVERSE FROM "filing-chunk-2"');
    expect(fromChunk.hits.map((h) => [h.key, h.relType, h.depth])).toEqual([['filing', 'chunk_of', 1]]);
    expect((await query(user, 'TRAVERSE FROM "filing-chunk-2" TYPE "chunk_of" DEPTH 2')).hits.map((h) => h.key)).toEqual(['filing']);
  });

  it('cuts long text into overlapping chunks within the size limit', async () => {
    const user = newUser(server.url);
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i + 1} talks about invoices.`).join(' ');
    const result = await ingested(user, { name: 'notes.txt', bytes: sentences }, { key: 'Long Notes' });
    expect(result.resource.key).toBe('long-notes');
    const chunks = await chunkRows(user, 'long-notes');
    expect(chunks.length).toBe(result.chunks);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.content!.length <= 400)).toBe(true);
    const ordered = chunks.sort((a, b) => Number(a.key.split('-').at(-1)) - Number(b.key.split('-').at(-1)));
    // Each chunk after the first starts with the end of the one before.
    for (let i = 1; i < ordered.length; i++) {
      const lead = ordered[i]!.content!.split(' ').slice(0, 3).join(' ');
      expect(ordered[i - 1]!.content).toContain(lead);
    }
  });

  it('reads the visible text of HTML under its headings', async () => {
    const user = newUser(server.url);
    const html = `<!doctype html><html><head><title>T</title><style>body { color: red }</style><script>var secret = 'do not index';</script></head>
      <body><nav>Home | About</nav><h1>Onboarding</h1><p>New staff get a laptop on day one.</p><h2>Access</h2><p>Badges are issued by &amp; collected from reception.</p></body></html>`;
    const result = await ingested(user, { name: 'onboarding.html', bytes: html, type: 'text/html' });
    expect(result.chunks).toBe(2);
    const chunks = await chunkRows(user, 'onboarding');
    expect(chunks.map((c) => [c.name, c.content])).toEqual([
      ['onboarding.html › Onboarding', 'New staff get a laptop on day one.'],
      ['onboarding.html › Onboarding › Access', 'Badges are issued by & collected from reception.'],
    ]);
  });

  it('reads PDF pages', async () => {
    const user = newUser(server.url);
    const result = await ingested(user, {
      name: 'report.pdf',
      bytes: pdfOf(['Quarterly revenue grew by ten percent', 'Headcount stayed at forty people']),
      type: 'application/pdf',
    });
    expect(result).toMatchObject({ chunks: 2, resource: { metadata: { format: 'pdf' } } });
    const chunks = await chunkRows(user, 'report');
    expect(chunks.map((c) => [c.name, c.content])).toEqual([
      ['report.pdf › Page 1', 'Quarterly revenue grew by ten percent'],
      ['report.pdf › Page 2', 'Headcount stayed at forty people'],
    ]);
    expect((await query(user, 'SEARCH "headcount" FROM resources LIMIT 1')).hits.map((h) => h.key)).toEqual(['report-chunk-2']);
  });

  it('refuses bad and oversized files with typed errors and stores nothing', async () => {
    const user = newUser(server.url);
    const failure = async (file: Parameters<typeof upload>[1], variables: Parameters<typeof upload>[2] = {}) => {
      const res = await upload(user, file, variables);
      expect(res.status).toBe(200);
      return res.body.data!.ingestFile;
    };
    expect(await failure({ name: 'tool.exe', bytes: 'MZ', type: 'application/octet-stream' })).toMatchObject({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^tool\.exe: unsupported file type/),
    });
    expect(await failure({ name: 'notes.txt', bytes: new Uint8Array([0x68, 0x69, 0x00, 0xff]) })).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: not valid UTF-8 text',
    });
    expect(await failure({ name: 'notes.txt', bytes: 'a\u0000b' })).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: binary content (NUL bytes) in a text file',
    });
    expect(await failure({ name: 'broken.pdf', bytes: '%PDF-1.4 garbage' })).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: the PDF could not be read',
    });
    expect(await failure({ name: 'fake.pdf', bytes: 'hello' })).toMatchObject({ __typename: 'ValidationError', message: 'file: not a PDF (no %PDF- header)' });
    expect(await failure({ name: 'empty.md', bytes: '' })).toMatchObject({ __typename: 'ValidationError', message: 'file: empty' });
    expect(await failure({ name: 'blank.md', bytes: '# Title only\n\n' })).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: no text found in it',
    });
    expect(await failure({ name: 'x.md', bytes: 'text' }, { key: '!!!' })).toMatchObject({ __typename: 'ValidationError', issues: [{ path: ['key'] }] });
    expect(await failure({ name: 'big.txt', bytes: 'x '.repeat(MAX_FILE) })).toMatchObject({
      __typename: 'PayloadTooLargeError',
      code: 'PAYLOAD_TOO_LARGE',
      limit: MAX_FILE,
      message: `File exceeds ${MAX_FILE} bytes`,
    });

    // Beyond MAX_REQUEST_BYTES + INGEST_MAX_FILE_BYTES the request itself is refused before it is read.
    const huge = await upload(user, { name: 'huge.txt', bytes: 'x'.repeat(1_048_576 + MAX_FILE + 10) });
    expect(huge.status).toBe(413);
    expect(huge.body.errors![0]!.extensions!.code).toBe('PAYLOAD_TOO_LARGE');

    expect(await server.db.prisma.resource.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
  });

  it('reports progress to a subscriber of the progressId, through DONE or FAILED', async () => {
    const user = newUser(server.url);
    const client = wsClient(server.url, user.headers);
    try {
      const follow = (progressId: string) => {
        const sub = collect(client, IngestProgressDocument, { progressId });
        return { sub, events: async () => (await sub.done).map((r) => r.data!.ingestProgress) };
      };
      // graphql-ws does not say when a subscription is live; the server needs no database for it, so a moment is plenty.
      const settle = () => new Promise((resolve) => setTimeout(resolve, 500));
      const ok = follow('upload-1');
      await settle();
      await ingested(user, { name: 'handbook.md', bytes: HANDBOOK }, { progressId: 'upload-1' });
      expect(await ok.events()).toEqual([
        { stage: 'EXTRACTING', chunks: null },
        { stage: 'EMBEDDING', chunks: 3 },
        { stage: 'STORING', chunks: 3 },
        { stage: 'DONE', chunks: 3 },
      ]);

      const bad = follow('upload-2');
      await settle();
      await upload(user, { name: 'broken.pdf', bytes: '%PDF-1.4 garbage' }, { progressId: 'upload-2' });
      expect(await bad.events()).toEqual([
        { stage: 'EXTRACTING', chunks: null },
        { stage: 'FAILED', chunks: null },
      ]);
    } finally {
      await client.dispose();
    }
  });

  it('needs the CSRF header on multipart requests (a page of another site cannot add it without a preflight)', async () => {
    const user = newUser(server.url);
    const res = await upload(user, { name: 'a.md', bytes: 'hello' }, {}, false);
    expect(res.status).toBe(403);
    expect(res.body.errors![0]!.message).toMatch(/x-graphql-yoga-csrf/);
    expect(await server.db.prisma.resource.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);
  });
});
