import { afterAll, describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { chat, startAgentServer } from '../support/agents.js';
import { capturingLogger } from '../support/log-capture.js';

const log = capturingLogger();
const env = await startAgentServer({}, { logger: log.logger });
afterAll(async () => {
  await env.server.stop();
  await env.fake.close();
});

const diagnostics = () => log.lines().filter((line) => line.msg === 'diagnostics');

describe('SIGUSR2', () => {
  it('logs what the process holds: the ended turn kept for late followers, no listener left, Node’s resources', async () => {
    env.fake.enqueue({ text: 'Hello.' });
    const { turn } = await chat(env.server.url, newUser(env.server.url), { content: 'hi' });
    expect(turn.status).toBe('COMPLETED');
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(diagnostics()).toHaveLength(1);
    const held = diagnostics()[0]!.diagnostics as Record<string, number>;
    expect(held).toMatchObject({ openTurns: 0, endedTurns: 1, turnListeners: 0, sessionListeners: 0, closeWatchers: 0 });
    expect(held.TCPServerWrap).toBeGreaterThanOrEqual(1);
  });

  it('is no longer handled once the server stopped', async () => {
    await env.server.stop();
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(diagnostics()).toHaveLength(1);
  });
});
