import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newUser, postGraphQL } from '../support/client.js';
import { ingestDocument } from '../support/documents.js';
import { useAgentServer } from '../support/agents.js';
import { readmeBlocks } from '../support/readme-blocks.js';

// docs/documents.md's GraphQL examples, run in order as written. The page says what the reader
// has: `handbook.md` ingested; DOCUMENT_ID and CORPUS_ID in its variables stand for the ids the
// examples before them printed, and are replaced here by those ids.

const page = readFileSync(fileURLToPath(new URL('../../docs/documents.md', import.meta.url)), 'utf8');
const blocks = readmeBlocks(page, 'docs/documents.md').filter((b) => b.kind === 'graphql');

const HANDBOOK =
  '# Expenses handbook\n\nEveryone files expenses within thirty days of spending.\n\n## Meals\n\nMeals on the road are paid up to 40 euros a day.\n';

describe('docs/documents.md', () => {
  const env = useAgentServer();

  it('runs every GraphQL example of the page in order, without errors', async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const user = newUser(env.server.url);
    const ids: Record<string, string> = { DOCUMENT_ID: (await ingestDocument(env.server.url, user, { name: 'handbook.md', bytes: HANDBOOK })).id };
    env.fake.enqueue({ json: { value: 30 } });
    const results: unknown[] = [];
    for (const block of blocks) {
      const variables = block.variables ? JSON.parse(block.variables.replace(/DOCUMENT_ID|CORPUS_ID/g, (name) => ids[name]!)) : undefined;
      const res = await postGraphQL<Record<string, unknown>>(env.server.url, { query: block.code, variables }, user.headers);
      expect(res.body.errors, `line ${block.line}: ${JSON.stringify(res.body.errors)}`).toBeUndefined();
      expect(JSON.stringify(res.body.data), `line ${block.line}`).not.toMatch(/"__typename":"\w+Error"/);
      results.push(res.body.data);
      const corpus = (res.body.data as { createCorpus?: { corpus?: { id: string } } }).createCorpus?.corpus?.id;
      if (corpus) ids.CORPUS_ID = corpus;
    }
    expect(results[2]).toMatchObject({ annotateDocument: { annotations: [{ text: 'thirty days' }] } });
    const passages = (results[3] as { searchDocuments: { document: { title: string } }[] }).searchDocuments;
    expect(passages.length).toBeGreaterThan(0);
    expect(new Set(passages.map((p) => p.document.title))).toEqual(new Set(['handbook.md']));
    expect(results[4]).toMatchObject({ extract: { data: 30, source: { mode: 'WHOLE' } } });
  });
});
