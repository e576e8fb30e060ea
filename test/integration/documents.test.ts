import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { corpusOf, ingestDocument } from '../support/documents.js';
import { pdfOf } from '../support/pdf.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  AddDocumentNoteDocument,
  AddDocumentsToCorpusDocument,
  AnnotateDocumentDocument,
  CorporaDocument,
  CorpusDetailDocument,
  CreateCorpusDocument,
  DeleteCorpusDocument,
  DocumentDetailDocument,
  DocumentsDocument,
  DocumentTextDocument,
  NodeDocumentDocument,
  RemoveDocumentsFromCorpusDocument,
  SearchDocumentsDocument,
  SummaryDiffDocument,
  UpdateCorpusDescriptionDocument,
  UpdateDocumentNoteDocument,
  UpdateDocumentSummaryDocument,
} from '../generated/graphql.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ INGEST_CHUNK_CHARS: '200', INGEST_CHUNK_OVERLAP_CHARS: '40' });
});
afterAll(async () => {
  await server?.stop();
});

const LEASE = `# Office lease

The tenant pays rent of 2000 euros on the first day of each month. Late payment costs a fee of 50 euros.

## Termination

Either party may end the lease with three months notice in writing. The landlord keeps the deposit when the tenant leaves early.

## Repairs

The landlord repairs the heating, the roof and the windows within two weeks of a written request. The tenant repairs what the tenant breaks. Disputes about repairs go to the chamber of commerce of the city.
`;

const SUPPLY = `# Supply agreement

The supplier delivers coffee beans every week. Payment is due within thirty days of each invoice.
`;

async function library(user: Caller) {
  const lease = await ingestDocument(server.url, user, { name: 'Office Lease.md', bytes: LEASE, type: 'text/markdown' });
  const supply = await ingestDocument(server.url, user, { name: 'Supply Agreement.md', bytes: SUPPLY, type: 'text/markdown' });
  const corpus = await corpusOf(user, 'Contracts', [lease.id, supply.id], 'All our **contracts**.');
  return { lease, supply, corpus };
}

const text = async (user: Caller, id: string) => (await user.data(DocumentTextDocument, { id })).document.text;

describe('documents and corpora', () => {
  it('shows an ingested file as a document: title, key, text without the chunks’ overlap, pages of a PDF', async () => {
    const user = newUser(server.url);
    const { lease, supply, corpus } = await library(user);
    expect(lease.chunks).toBeGreaterThan(2);
    const docs = await user.data(DocumentsDocument, { first: 10 });
    expect(docs.documents.totalCount).toBe(2);
    expect(docs.documents.edges.map((e) => e.node.title).sort()).toEqual(['Office Lease.md', 'Supply Agreement.md']);

    const chunks = await server.db.prisma.resource.findMany({
      where: { tenantId: user.headers['x-tenant-id'], metadata: { path: ['parent'], equals: 'office-lease' } },
      select: { metadata: true },
    });
    expect(chunks.some((c) => (c.metadata as { overlap?: number }).overlap! > 0)).toBe(true);
    const full = await text(user, lease.id);
    // Every sentence once, in order, though consecutive chunks repeat words.
    for (const sentence of ['The tenant pays rent of 2000 euros', 'Late payment costs a fee of 50 euros.', 'The tenant repairs what the tenant breaks.']) {
      expect(full.split(sentence)).toHaveLength(2);
    }
    expect(full.indexOf('Late payment')).toBeGreaterThan(full.indexOf('The tenant pays rent'));
    const at = full.indexOf('three months');
    expect((await user.data(DocumentTextDocument, { id: lease.id, start: at, end: at + 12 })).document.text).toBe('three months');
    expect((await user.data(DocumentTextDocument, { id: lease.id, start: full.length - 6, end: full.length + 100 })).document.text).toBe(' city.');

    const pdf = await ingestDocument(server.url, user, {
      name: 'scan.pdf',
      bytes: pdfOf(['Page one says hello', 'Page two says goodbye']),
      type: 'application/pdf',
    });
    const detail = (await user.data(DocumentTextDocument, { id: pdf.id })).document;
    expect(detail).toMatchObject({ pageCount: 2, title: 'scan.pdf' });
    expect(detail.text).toBe('Page one says hello\n\nPage two says goodbye');
    expect((await user.data(DocumentTextDocument, { id: supply.id })).document.pageCount).toBeNull();

    const inCorpus = (await user.data(CorpusDetailDocument, { id: corpus })).corpus;
    expect(inCorpus.documents.totalCount).toBe(2);
    expect((await user.data(DocumentsDocument, { corpusId: corpus })).documents.edges.map((e) => e.node.key).sort()).toEqual([
      'office-lease',
      'supply-agreement',
    ]);
    expect((await user.data(NodeDocumentDocument, { id: lease.id })).node).toEqual({ __typename: 'Document', id: lease.id, key: 'office-lease' });
  });

  it('versions corpus descriptions and document summaries, with a unified diff between versions', async () => {
    const user = newUser(server.url);
    const { lease, corpus } = await library(user);
    const updated = (await user.data(UpdateCorpusDescriptionDocument, { corpusId: corpus, description: 'Leases and supply contracts.' }))
      .updateCorpusDescription;
    if (updated.__typename !== 'UpdateCorpusDescriptionSuccess') throw new Error(updated.__typename);
    expect(updated.corpus.description).toBe('Leases and supply contracts.');
    expect(updated.corpus.descriptionVersions.map((v) => [v.version, v.content, v.authorId])).toEqual([
      [1, 'All our **contracts**.', user.headers['x-user-id']],
      [2, 'Leases and supply contracts.', user.headers['x-user-id']],
    ]);

    for (const markdown of ['# Lease\n\nRent 2000 euros.\nNotice three months.', '# Lease\n\nRent 2000 euros a month.\nNotice three months.']) {
      const res = (await user.data(UpdateDocumentSummaryDocument, { documentId: lease.id, markdown })).updateDocumentSummary;
      expect(res.__typename).toBe('UpdateSummarySuccess');
    }
    const detail = (await user.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document;
    expect(detail.summary).toBe('# Lease\n\nRent 2000 euros a month.\nNotice three months.');
    expect(detail.summaryVersions.map((v) => [v.version, v.authorId, v.agentName])).toEqual([
      [1, user.headers['x-user-id'], null],
      [2, user.headers['x-user-id'], null],
    ]);
    const diff = (await user.data(SummaryDiffDocument, { id: lease.id, from: 1, to: 2 })).document.summaryDiff;
    expect(diff).toBe(
      [
        '===================================================================',
        '--- summary-v1.md',
        '+++ summary-v2.md',
        '@@ -1,4 +1,4 @@',
        ' # Lease',
        ' ',
        '-Rent 2000 euros.',
        '+Rent 2000 euros a month.',
        ' Notice three months.',
        '',
      ].join('\n'),
    );
    const missing = await user.request(SummaryDiffDocument, { id: lease.id, from: 1, to: 3 });
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('keeps every revision of a note on a document within a corpus', async () => {
    const user = newUser(server.url);
    const { lease, corpus } = await library(user);
    const added = (await user.data(AddDocumentNoteDocument, { input: { documentId: lease.id, corpusId: corpus, title: 'Rent', content: 'Rent is 2000.' } }))
      .addDocumentNote;
    if (added.__typename !== 'AddDocumentNoteSuccess') throw new Error(added.__typename);
    const changed = (await user.data(UpdateDocumentNoteDocument, { id: added.note.id, content: 'Rent is 2000 euros, due on the 1st.' })).updateDocumentNote;
    expect(changed).toMatchObject({ note: { title: 'Rent', content: 'Rent is 2000 euros, due on the 1st.' } });
    const notes = (await user.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document.notes;
    expect(notes).toHaveLength(1);
    expect(notes[0]!.revisions.map((r) => [r.version, r.content])).toEqual([
      [1, 'Rent is 2000.'],
      [2, 'Rent is 2000 euros, due on the 1st.'],
    ]);
  });

  it('annotates exact strings with their offsets and page, and refuses overlapping or out-of-range spans, writing nothing', async () => {
    const user = newUser(server.url);
    const { lease, corpus } = await library(user);
    const full = await text(user, lease.id);
    const res = (await user.data(AnnotateDocumentDocument, { input: { documentId: lease.id, corpusId: corpus, label: 'Money', strings: ['euros'] } }))
      .annotateDocument;
    if (res.__typename !== 'AnnotationsPayload') throw new Error(res.__typename);
    expect(res.annotations).toHaveLength(2);
    for (const a of res.annotations) expect(full.slice(a.start, a.end)).toBe('euros');

    const bad = [
      { label: 'Money', strings: ['2000 euros'] }, // overlaps an existing Money span
      {
        label: 'Other',
        spans: [
          { start: 0, end: 10 },
          { start: 5, end: 12 },
        ],
      }, // overlap each other
      { label: 'Other', spans: [{ start: 0, end: full.length + 1 }] },
      { label: 'Other', spans: [{ start: 7, end: 7 }] },
      { label: 'Other', strings: ['not in this lease'] },
    ];
    for (const input of bad) {
      const refused = (await user.data(AnnotateDocumentDocument, { input: { documentId: lease.id, corpusId: corpus, ...input } })).annotateDocument;
      expect(refused.__typename, JSON.stringify(input)).toBe('ValidationError');
    }
    const stored = (await user.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document.annotations;
    expect(stored.map((a) => a.label)).toEqual(['Money', 'Money']);
  });

  it('searches passages with the seed’s filters: document, corpus, title, content and annotation label', async () => {
    const user = newUser(server.url);
    const { lease, supply, corpus } = await library(user);
    const outside = await ingestDocument(server.url, user, { name: 'Other lease.md', bytes: '# Other\n\nThe tenant pays rent of 900 euros.\n' });
    const search = async (query: string, filter: Record<string, string>, k = 10) =>
      (await user.data(SearchDocumentsDocument, { query, k, filter })).searchDocuments;

    const inLease = await search('payment rent euros', { documentId: lease.id });
    expect(inLease.length).toBeGreaterThan(0);
    expect(new Set(inLease.map((p) => p.document.key))).toEqual(new Set(['office-lease']));
    expect(inLease[0]!.score).toBeGreaterThan(0);

    const inCorpus = await search('tenant pays rent', { corpusId: corpus });
    expect(inCorpus.map((p) => p.document.key)).not.toContain(outside.key);
    expect(inCorpus.every((p) => p.corpusId === corpus)).toBe(true);
    expect(new Set((await search('tenant pays rent', {})).map((p) => p.document.key))).toContain(outside.key);

    expect(new Set((await search('payment', { titleContains: 'SUPPLY' })).map((p) => p.document.key))).toEqual(new Set([supply.key]));
    const holding = await search('payment', { corpusId: corpus, contentContains: 'invoice' });
    expect(holding.map((p) => p.document.key)).toEqual([supply.key]);

    await user.data(AnnotateDocumentDocument, { input: { documentId: supply.id, corpusId: corpus, label: 'Delivery', strings: ['coffee beans'] } });
    const labelled = await search('payment', { corpusId: corpus, label: 'Delivery' });
    expect(labelled.map((p) => [p.document.key, p.annotationLabel])).toEqual([[supply.key, 'Delivery']]);
  });

  it('answers NOT_FOUND for another user’s documents, corpora, notes and annotations', async () => {
    const owner = newUser(server.url);
    const { lease, corpus } = await library(owner);
    const note = (await owner.data(AddDocumentNoteDocument, { input: { documentId: lease.id, corpusId: corpus, title: 'Mine', content: 'Private.' } }))
      .addDocumentNote;
    if (note.__typename !== 'AddDocumentNoteSuccess') throw new Error(note.__typename);
    const other = newUser(server.url, owner.headers['x-tenant-id']);

    for (const res of [
      await other.request(DocumentTextDocument, { id: lease.id }),
      await other.request(CorpusDetailDocument, { id: corpus }),
      await other.request(SearchDocumentsDocument, { query: 'rent', filter: { documentId: lease.id } }),
    ]) {
      expect(res.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    expect((await other.data(NodeDocumentDocument, { id: lease.id })).node).toBeNull();
    expect((await other.data(NodeDocumentDocument, { id: corpus })).node).toBeNull();
    expect((await other.data(DocumentsDocument, {})).documents.totalCount).toBe(0);
    expect((await other.data(CorporaDocument, {})).corpora.totalCount).toBe(0);
    expect((await other.data(UpdateDocumentNoteDocument, { id: note.note.id, content: 'Taken over' })).updateDocumentNote.__typename).toBe('NotFoundError');
    expect((await other.data(AddDocumentsToCorpusDocument, { corpusId: corpus, documentIds: [lease.id] })).addDocumentsToCorpus.__typename).toBe(
      'NotFoundError',
    );
    expect((await other.data(DeleteCorpusDocument, { id: corpus })).deleteCorpus.__typename).toBe('NotFoundError');
    expect((await other.data(AnnotateDocumentDocument, { input: { documentId: lease.id, label: 'X', strings: ['rent'] } })).annotateDocument.__typename).toBe(
      'NotFoundError',
    );
    // The owner's rows are as they were.
    const detail = (await owner.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document;
    expect(detail.notes.map((n) => n.content)).toEqual(['Private.']);
    expect(detail.annotations).toEqual([]);
  });

  it('refuses bad input with a typed error and changes nothing', async () => {
    const user = newUser(server.url);
    const { lease, supply, corpus } = await library(user);
    const loose = await ingestDocument(server.url, user, { name: 'loose.md', bytes: 'Not in any corpus.' });
    const unknownDoc = Buffer.from('Document:00000000-0000-4000-8000-000000000000').toString('base64');

    expect((await user.data(CreateCorpusDocument, { input: { name: '  ' } })).createCorpus.__typename).toBe('ValidationError');
    expect((await user.data(AddDocumentsToCorpusDocument, { corpusId: corpus, documentIds: [loose.id, unknownDoc] })).addDocumentsToCorpus).toMatchObject({
      __typename: 'NotFoundError',
    });
    expect(
      (await user.data(RemoveDocumentsFromCorpusDocument, { corpusId: corpus, documentIds: [lease.id, loose.id] })).removeDocumentsFromCorpus,
    ).toMatchObject({
      __typename: 'ValidationError',
    });
    expect(
      (await user.data(AddDocumentNoteDocument, { input: { documentId: loose.id, corpusId: corpus, title: 'x', content: 'y' } })).addDocumentNote.__typename,
    ).toBe('ValidationError');
    const huge = 'x'.repeat(100_001);
    expect(
      (await user.data(AddDocumentNoteDocument, { input: { documentId: lease.id, corpusId: corpus, title: 'Huge', content: huge } })).addDocumentNote
        .__typename,
    ).toBe('ValidationError');
    expect((await user.data(UpdateDocumentSummaryDocument, { documentId: unknownDoc, markdown: 'x' })).updateDocumentSummary.__typename).toBe('NotFoundError');
    expect((await user.data(UpdateCorpusDescriptionDocument, { corpusId: corpus, description: ' ' })).updateCorpusDescription.__typename).toBe(
      'ValidationError',
    );
    const malformed = await user.request(DocumentTextDocument, { id: 'not-an-id' });
    expect(malformed.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');

    const after = (await user.data(CorpusDetailDocument, { id: corpus })).corpus;
    expect(after.documents.edges.map((e) => e.node.id).sort()).toEqual([lease.id, supply.id].sort());
    expect(after.descriptionVersions).toHaveLength(1);
    expect((await user.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document.notes).toEqual([]);

    const removed = await user.data(RemoveDocumentsFromCorpusDocument, { corpusId: corpus, documentIds: [supply.id] });
    expect(removed.removeDocumentsFromCorpus.__typename).toBe('RemoveDocumentsFromCorpusSuccess');
    expect((await user.data(DeleteCorpusDocument, { id: corpus })).deleteCorpus.__typename).toBe('DeleteCorpusSuccess');
    expect((await user.request(CorpusDetailDocument, { id: corpus })).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await user.data(DocumentsDocument, {})).documents.totalCount).toBe(3);
  });
});
