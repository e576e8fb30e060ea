import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { ingestDocument } from '../support/documents.js';
import { useAgentServer } from '../support/agents.js';
import { backend } from '../support/server.js';
import { REMGRAPH_BIN } from '../support/process.js';

// `remgraph documents` and `remgraph corpus` as a user runs them: a separate process speaking
// GraphQL to a real server, through a pipe (JSON lines). One backend is enough for a client.

const root = fileURLToPath(new URL('../../', import.meta.url));

function cli(args: string[], user: Caller, url: string, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, REMGRAPH_URL: url, REMGRAPH_USER: user.headers['x-user-id']!, REMGRAPH_TENANT: user.headers['x-tenant-id']! };
  const proc = spawn(process.execPath, [REMGRAPH_BIN, ...args], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => (stdout += chunk));
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  proc.stdin.end(input);
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe.skipIf(backend() === 'postgres')('remgraph documents, corpus and chat --document', () => {
  const env = useAgentServer();

  it('lists and shows documents, creates a corpus, adds to it, and chats bound to a document', async () => {
    const user = newUser(env.server.url);
    const doc = await ingestDocument(env.server.url, user, { name: 'lease.md', bytes: '# Lease\n\nRent is 2000 euros.\n' });

    const listed = await cli(['documents', 'list'], user, env.server.url);
    expect(listed.code, listed.stderr).toBe(0);
    expect(lines(listed.stdout)).toMatchObject([{ id: doc.id, title: 'lease.md', key: 'lease' }]);
    const shown = await cli(['documents', 'show', doc.id], user, env.server.url);
    expect(lines(shown.stdout)).toMatchObject([{ id: doc.id, text: 'Rent is 2000 euros.' }]);

    const created = await cli(['corpus', 'create', 'Contracts', '--description', 'All of them.'], user, env.server.url);
    expect(created.code, created.stderr).toBe(0);
    const corpus = lines(created.stdout)[0]!.id as string;
    const added = await cli(['corpus', 'add', corpus, doc.id], user, env.server.url);
    expect(lines(added.stdout)).toMatchObject([{ id: corpus, documents: 1 }]);
    expect(lines((await cli(['corpus', 'list'], user, env.server.url)).stdout)).toMatchObject([
      { id: corpus, name: 'Contracts', documents: 1, description: 'All of them.' },
    ]);
    expect(lines((await cli(['corpus', 'show', corpus], user, env.server.url)).stdout)).toMatchObject([{ name: 'Contracts', documents: [{ id: doc.id }] }]);
    expect(lines((await cli(['documents', 'list', '--corpus', corpus], user, env.server.url)).stdout)).toHaveLength(1);

    const bad = await cli(['corpus', 'add', corpus, 'not-an-id'], user, env.server.url);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/VALIDATION_FAILED|not a valid ID/);

    env.fake.enqueue({ text: 'It is about rent.' });
    const chat = await cli(['chat', '--document', doc.id, '--corpus', corpus], user, env.server.url, 'What is this document about?');
    expect(chat, chat.stderr).toMatchObject({ code: 0, stdout: 'It is about rent.\n' });
    const sent = env.fake.chatRequests.at(-1)!.body as { messages: { content: string }[]; tools: { function: { name: string } }[] };
    expect(sent.messages[0]!.content).toContain('the document "lease.md"');
    expect(sent.tools.map((t) => t.function.name)).toContain('add_document_note');
  });
});
