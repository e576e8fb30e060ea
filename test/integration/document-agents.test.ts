import { describe, expect, it } from 'vitest';
import { collect, newUser, wsClient, type Caller } from '../support/client.js';
import { corpusOf, ingestDocument } from '../support/documents.js';
import { pdfOf } from '../support/pdf.js';
import { followTurn, registerAgent, send, shape, untilPaused, useAgentServer, type Event } from '../support/agents.js';
import {
  AddDocumentNoteDocument,
  AnnotateDocumentDocument,
  DecideApprovalDocument,
  DocumentDetailDocument,
  SendMessageDocument,
  SessionBindingDocument,
  TurnEventsDocument,
  UpdateDocumentSummaryDocument,
} from '../generated/graphql.js';

const env = useAgentServer({ INGEST_CHUNK_CHARS: '200', INGEST_CHUNK_OVERLAP_CHARS: '0' });

const READER = `
name: reader
description: You answer questions about documents.
tools:
  - name: search
`;

const LEASE = `# Office lease

The tenant pays rent of 2000 euros on the first day of each month.

## Termination

Either party may end the lease with three months notice in writing.
`;

const DOCUMENT_TOOLS = [
  'similarity_search',
  'load_md_summary',
  'load_document_md_summary',
  'get_md_summary_token_length',
  'load_document_txt_extract',
  'get_notes_for_document_corpus',
  'get_note_content_token_length',
  'get_partial_note_content',
  'search_document_notes',
  'add_document_note',
  'update_document_note',
  'duplicate_annotations',
  'add_exact_string_annotations',
  'get_document_summary',
  'get_document_summary_versions',
  'get_document_summary_diff',
  'update_document_summary',
];
const CORPUS_TOOLS = ['similarity_search', 'get_corpus_description', 'update_corpus_description', 'list_documents', 'ask_document'];
const WITHOUT_CORPUS = ['similarity_search', 'load_md_summary', 'load_document_md_summary', 'get_md_summary_token_length', 'load_document_txt_extract'];

async function setUp(user: Caller) {
  await registerAgent(user, READER);
  const lease = await ingestDocument(env.server.url, user, { name: 'Office Lease.md', bytes: LEASE, type: 'text/markdown' });
  const scan = await ingestDocument(env.server.url, user, {
    name: 'scan.pdf',
    bytes: pdfOf(['Invoices are paid within thirty days', 'Deliveries arrive every Monday morning']),
    type: 'application/pdf',
  });
  const loose = await ingestDocument(env.server.url, user, { name: 'loose.md', bytes: 'The tenant pays rent of 900 euros in the other building.' });
  const corpus = await corpusOf(user, 'Contracts', [lease.id, scan.id], 'Our contracts.');
  return { lease, scan, loose, corpus };
}

const rowId = (globalId: string) => Buffer.from(globalId, 'base64').toString().split(':')[1]!;
const offered = (i: number) => ((env.fake.chatRequests[i]!.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name).sort();
const systemPrompt = (i: number) => (env.fake.chatRequests[i]!.body.messages as { role: string; content: string }[])[0]!.content;
const toolResult = (events: Event[], name: string) =>
  (events.find((e) => e.__typename === 'ToolResultEvent' && e.name === name) as Extract<Event, { __typename: 'ToolResultEvent' }> | undefined)?.result;

describe('turns bound to a document or a corpus', () => {
  it('offers the seed’s tools for the binding (corpus-only ones dropped without a corpus) and names it; the session keeps it', async () => {
    const user = newUser(env.server.url);
    const { lease, loose, corpus } = await setUp(user);
    env.fake.enqueue({ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' });
    const inCorpus = await send(user, { content: 'What is this?', agent: 'reader', document: lease.id, corpus });
    await followTurn(env.server.url, user, inCorpus.turn.id);
    const alone = await send(user, { content: 'And this?', agent: 'reader', document: loose.id });
    await followTurn(env.server.url, user, alone.turn.id);
    const corpusTurn = await send(user, { content: 'Which contracts?', agent: 'reader', corpus });
    await followTurn(env.server.url, user, corpusTurn.turn.id);
    // The same session again, without naming the document: its binding holds.
    const again = await send(user, { content: 'Tell me more', sessionId: alone.session.id });
    await followTurn(env.server.url, user, again.turn.id);

    expect(offered(0)).toEqual([...new Set(['search', ...DOCUMENT_TOOLS, ...CORPUS_TOOLS])].sort());
    expect(offered(1)).toEqual(['search', ...WITHOUT_CORPUS].sort());
    expect(offered(2)).toEqual(['search', ...CORPUS_TOOLS].sort());
    expect(offered(3)).toEqual(offered(1));
    expect(systemPrompt(0)).toContain('the document "Office Lease.md"');
    expect(systemPrompt(0)).toContain('the corpus "Contracts"');
    expect(systemPrompt(2)).toContain('Our contracts.');
    const bound = (await user.data(SessionBindingDocument, { id: alone.session.id })).session!;
    expect(bound).toMatchObject({ document: { id: loose.id, title: 'loose.md' }, corpus: null });
  });

  it('refuses a binding the caller cannot use with a typed error, storing nothing', async () => {
    const user = newUser(env.server.url);
    const { loose, corpus } = await setUp(user);
    const other = newUser(env.server.url, user.headers['x-tenant-id']);
    await registerAgent(other, READER);
    const outside = await user.data(SendMessageDocument, { input: { content: 'hi', agent: 'reader', document: loose.id, corpus } });
    expect(outside.sendMessage.__typename).toBe('ValidationError');
    const foreign = await other.data(SendMessageDocument, { input: { content: 'hi', agent: 'reader', document: loose.id } });
    expect(foreign.sendMessage.__typename).toBe('NotFoundError');
    expect(await env.server.db.prisma.session.count({ where: { tenantId: user.headers['x-tenant-id'] } })).toBe(0);
    expect(env.fake.chatRequests).toHaveLength(0);
  });

  it('searches only the bound document (similarity_search) or corpus (search), and the answer keeps its sources with page', async () => {
    const user = newUser(env.server.url);
    const { scan, loose, corpus } = await setUp(user);
    env.fake.enqueue(
      { toolCalls: [{ id: 's1', name: 'similarity_search', arguments: { query: 'tenant pays rent euros invoices', k: 10 } }] },
      { text: 'Thirty days.' },
    );
    const sent = await send(user, { content: 'When are invoices paid?', agent: 'reader', document: scan.id, corpus });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    const passages = (toolResult(events, 'similarity_search') as { passages: { document_id: string; page: number }[] }).passages;
    expect(passages.length).toBe(2);
    expect(new Set(passages.map((p) => p.document_id))).toEqual(new Set([rowId(scan.id)]));
    expect(passages.map((p) => p.page).sort()).toEqual([1, 2]);

    // Reloaded, the answer shows its citations: document, corpus and page.
    const messages = (await user.data(SessionBindingDocument, { id: sent.session.id })).session!.messages.edges.map((e) => e.node);
    const answer = messages.find((m) => m.type === 'assistant')!;
    expect(answer.content).toBe('Thirty days.');
    expect(answer.sources.map((s) => [s.document, s.corpus, s.page]).sort()).toEqual([
      [scan.id, corpus, 1],
      [scan.id, corpus, 2],
    ]);

    env.fake.enqueue({ toolCalls: [{ id: 's2', name: 'search', arguments: { query: 'SEARCH "tenant pays rent" FROM resources LIMIT 20' } }] }, { text: 'ok' });
    const corpusTurn = await send(user, { content: 'rent?', agent: 'reader', corpus });
    const found = (toolResult(await followTurn(env.server.url, user, corpusTurn.turn.id), 'search') as { hits: { key: string }[] }).hits;
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((h) => h.key).filter((k) => k.startsWith(loose.key))).toEqual([]);
  });

  it('pauses each writing tool for approval and writes once after it', async () => {
    const user = newUser(env.server.url);
    const { lease, corpus } = await setUp(user);
    const note = (await user.data(AddDocumentNoteDocument, { input: { documentId: lease.id, corpusId: corpus, title: 'Rent', content: 'First.' } }))
      .addDocumentNote;
    if (note.__typename !== 'AddDocumentNoteSuccess') throw new Error(note.__typename);
    await user.data(UpdateDocumentSummaryDocument, { documentId: lease.id, markdown: 'Summary one.' });
    const annotated = (
      await user.data(AnnotateDocumentDocument, { input: { documentId: lease.id, corpusId: corpus, label: 'Money', strings: ['2000 euros'] } })
    ).annotateDocument;
    if (annotated.__typename !== 'AnnotationsPayload') throw new Error(annotated.__typename);
    const detail = async () => (await user.data(DocumentDetailDocument, { id: lease.id, corpusId: corpus })).document;
    const counts = async () => {
      const d = await detail();
      return {
        notes: d.notes.length,
        revisions: d.notes.flatMap((n) => n.revisions).length,
        summaries: d.summaryVersions.length,
        annotations: d.annotations.length,
      };
    };

    const writes: [string, Record<string, unknown>, Partial<Awaited<ReturnType<typeof counts>>>][] = [
      ['add_document_note', { title: 'Notice', content: 'Three months.' }, { notes: 2, revisions: 2 }],
      ['update_document_note', { note_id: rowId(note.note.id), new_content: 'Second.' }, { revisions: 3 }],
      ['update_document_summary', { new_content: 'Summary two.' }, { summaries: 2 }],
      ['add_exact_string_annotations', { label: 'Notice', exact_strings: ['three months'] }, { annotations: 2 }],
      ['duplicate_annotations', { annotation_ids: [rowId(annotated.annotations[0]!.id)], new_label: 'Amount' }, { annotations: 3 }],
    ];
    let expected = await counts();
    for (const [name, args, change] of writes) {
      env.fake.enqueue({ toolCalls: [{ id: `w-${name}`, name, arguments: args }] });
      const sent = await send(user, { content: `please ${name}`, agent: 'reader', document: lease.id, corpus });
      const before = await untilPaused(env.server.url, user, sent.turn.id);
      expect(shape(before), name).toEqual(['tool_call', 'approval_needed']);
      expect(await counts(), `${name} waits for the decision`).toEqual(expected);
      const needed = before[1] as Extract<Event, { __typename: 'ApprovalNeededEvent' }>;
      env.fake.enqueue({ text: 'Done.' });
      await user.data(DecideApprovalDocument, { id: needed.approvalId, approve: true });
      const after = await followTurn(env.server.url, user, sent.turn.id, (before.at(-1) as { seq: number }).seq);
      expect(toolResult(after, name), name).not.toHaveProperty('error');
      expected = { ...expected, ...change };
      expect(await counts(), `${name} wrote once`).toEqual(expected);
    }
    const d = await detail();
    expect(d.summaryVersions.map((v) => [v.content, v.agentName])).toEqual([
      ['Summary one.', null],
      ['Summary two.', 'reader'],
    ]);
    expect(d.notes.find((n) => n.title === 'Rent')!.revisions.map((r) => [r.version, r.content, r.agentName])).toEqual([
      [1, 'First.', null],
      [2, 'Second.', 'reader'],
    ]);
  });

  it('ask_document runs an agent bound to the document whose events stream live into the corpus turn', async () => {
    const user = newUser(env.server.url);
    const { lease, corpus } = await setUp(user);
    const answer = 'Rent is 2000 euros a month.';
    env.fake.enqueue(
      { toolCalls: [{ id: 'ask', name: 'ask_document', arguments: { document_id: rowId(lease.id), question: 'What is the rent?' } }] },
      { text: answer.split(/(?<= )/), delayMs: 40 },
      { text: 'The lease says: rent is 2000 euros a month.' },
    );
    const sent = await send(user, { content: 'What do our contracts say about rent?', agent: 'reader', corpus });
    const arrivals: { event: Event; at: number }[] = [];
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    const timer = setInterval(() => {
      while (arrivals.length < sub.items.length) arrivals.push({ event: sub.items[arrivals.length]!.data!.turnEvents, at: Date.now() });
    }, 1);
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    clearInterval(timer);
    await client.dispose();

    const children = events.filter((e): e is Extract<Event, { __typename: 'ChildEvent' }> => e.__typename === 'ChildEvent');
    expect(children.map((c) => c.event.__typename)).toEqual([...answer.split(/(?<= )/).map(() => 'ContentEvent'), 'FinalEvent']);
    expect(toolResult(events, 'ask_document')).toMatchObject({ document_id: rowId(lease.id), answer });
    const childTurn = await env.server.db.prisma.turn.findFirstOrThrow({ where: { parentId: rowId(sent.turn.id) } });
    const firstChild = arrivals.find((a) => a.event.__typename === 'ChildEvent')!.at;
    expect(firstChild).toBeLessThan(childTurn.finishedAt!.getTime());
    // The child was a document agent: the lease's tools, and told which document.
    expect(offered(1)).toEqual([...new Set(['search', ...DOCUMENT_TOOLS, ...CORPUS_TOOLS])].sort());
    expect(systemPrompt(1)).toContain('the document "Office Lease.md"');
  });
});
