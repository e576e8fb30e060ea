import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { corpusOf, ingestDocument } from '../support/documents.js';
import { registerAgent, useAgentServer } from '../support/agents.js';
import { AddDocumentNoteDocument, AnnotateDocumentDocument, UpdateDocumentNoteDocument, UpdateDocumentSummaryDocument } from '../generated/graphql.js';
import { useChromium } from './chromium.js';

const env = useAgentServer();
const browser = useChromium();

const identity = (user: Caller) => ({ mode: 'headers', userId: user.headers['x-user-id'], tenantId: user.headers['x-tenant-id'] });

describe('the documents view in Chromium', () => {
  it('shows corpora, a document’s text with its annotations, notes, summary versions and diff, and starts a bound chat', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: reader\ndescription: You answer questions about documents.\n');
    const lease = await ingestDocument(env.server.url, user, { name: 'Office Lease.md', bytes: '# Lease\n\nThe tenant pays rent of 2000 euros each month.\n' });
    const corpus = await corpusOf(user, 'Contracts', [lease.id], 'All our contracts.');
    await user.data(AnnotateDocumentDocument, { input: { documentId: lease.id, corpusId: corpus, label: 'Money', strings: ['2000 euros'] } });
    const note = (await user.data(AddDocumentNoteDocument, { input: { documentId: lease.id, corpusId: corpus, title: 'Rent', content: 'Monthly.' } }))
      .addDocumentNote;
    if (note.__typename !== 'AddDocumentNoteSuccess') throw new Error(note.__typename);
    await user.data(UpdateDocumentNoteDocument, { id: note.note.id, content: 'Monthly, on the first.' });
    await user.data(UpdateDocumentSummaryDocument, { documentId: lease.id, markdown: 'Rent 2000.' });
    await user.data(UpdateDocumentSummaryDocument, { documentId: lease.id, markdown: 'Rent 2000 euros a month.' });

    const page = await browser.open(new URL('/', env.server.url).href, identity(user));
    await page.getByTestId('documents-toggle').click();
    await page.getByTestId('corpus').first().waitFor();
    expect(await page.getByTestId('corpus').first().innerText()).toContain('Contracts');
    await page.getByTestId('document').first().click();
    await page.getByTestId('document-detail').waitFor();
    expect(await page.getByTestId('annotation').innerText()).toBe('2000 euros');
    expect(await page.getByTestId('annotation').getAttribute('data-label')).toBe('Money');
    expect(await page.getByTestId('notes').innerText()).toContain('Monthly, on the first. (2 revisions)');
    expect(await page.getByTestId('summary').innerText()).toBe('Rent 2000 euros a month.');
    await page.getByTestId('summary-diff-button').click();
    expect(await page.getByTestId('summary-diff').innerText()).toContain('+Rent 2000 euros a month.');
    await browser.screenshot(page, 'documents-view');

    await page.getByTestId('chat-document').click();
    expect(await page.getByTestId('binding').innerText()).toContain('Office Lease.md');
    env.fake.enqueue({ text: 'It is a lease.' });
    await page.getByTestId('message-input').fill('What is this?');
    await page.getByTestId('message-input').press('Enter');
    await page.locator('[data-testid=turn][data-status=COMPLETED]').last().waitFor();
    const sent = env.fake.chatRequests.at(-1)!.body as { messages: { content: string }[]; tools?: { function: { name: string } }[] };
    expect(sent.messages[0]!.content).toContain('the document "Office Lease.md"');
    expect(sent.tools?.map((t) => t.function.name)).toContain('similarity_search');
    await browser.screenshot(page, 'documents-bound-chat');

    // The banner belongs to the bound session: a new chat has none, and coming back shows it again.
    const bound = page.url();
    await page.getByTestId('new-session').click();
    await page.waitForFunction((before) => location.href !== before, bound);
    await page.getByTestId('binding').waitFor({ state: 'detached' });
    await page.goto(bound);
    expect(await page.getByTestId('binding').innerText()).toContain('Office Lease.md');
    expect(page.problems).toEqual([]);
  });
});
