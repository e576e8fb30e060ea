import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useAgentServer } from '../support/agents.js';

const env = useAgentServer();
const root = fileURLToPath(new URL('../../', import.meta.url));

function runExample(message: string, extraEnv: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'examples/chat-client.ts', message],
      { cwd: root, env: { ...process.env, REMGRAPH_URL: env.server.url, ...extraEnv } },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

describe('examples/chat-client.ts (the typed client example)', () => {
  it('streams a turn and, after a forced disconnect, resumes from the last seq with nothing lost or repeated', async () => {
    const chunks = Array.from({ length: 12 }, (_, i) => `part${i} `);
    env.fake.enqueue({ text: chunks, delayMs: 60 });
    const { code, stdout, stderr } = await runExample('Tell me a story', { DISCONNECT_AFTER: '4' });
    // The socket is cut after the 4th event; events already on their way may still arrive.
    expect(stderr).toMatch(/\[connection lost after seq \d+; resuming\]/);
    expect(stdout).toBe(`${chunks.join('')}\n`);
    expect(stderr).toMatch(/turn COMPLETED after \d+ events/);
    expect(code).toBe(0);
    expect(env.fake.chatRequests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Tell me a story' });
  });

  it('names the URL it could not reach', async () => {
    const { code, stderr } = await runExample('Hello', { REMGRAPH_URL: 'http://127.0.0.1:9/graphql' });
    expect(stderr).toMatch(/^cannot reach remgraph at http:\/\/127\.0\.0\.1:9\/graphql \(set REMGRAPH_URL\): /);
    expect(code).toBe(1);
  });
});
