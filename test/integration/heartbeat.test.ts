import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { contentOf, followTurn, send, useAgentServer } from '../support/agents.js';
import { capturingLogger } from '../support/log-capture.js';

const log = capturingLogger();
// Beats every 50 ms (the least allowed), so that several fall inside the window a test opens.
const env = useAgentServer({ TURN_HEARTBEAT_MS: '50' }, { logger: log.logger });

const TOOK_OVER = 'another process took over a turn tree this process held; stopping its runs here';

describe('the heartbeat of held turn trees', () => {
  // A turn's outcome statement lets go of its tree in the database (runner NULL) a moment before
  // the process lets go of it in memory, delivering the final event to its followers on the way. A
  // beat in between took that for a takeover by another process and closed the turn in the hub:
  // the final event, already stored, never reached a follower who was live (seen once in a
  // 500-turn burst on PostgreSQL: the follower waited forever). Here the window is held open.
  it('does not take a tree nobody holds (its root just ended) for one taken over: the run goes on and followers get its end', async () => {
    const user = newUser(env.server.url);
    const held = env.fake.holdNext('/v1/chat/completions');
    env.fake.enqueue({ text: ['still ', 'here'] });
    const sent = await send(user, { content: 'hello' });
    await held.reached;
    const turnId = decodeGlobalID(sent.turn.id).id;
    const { runner } = await env.server.db.prisma.turn.findUniqueOrThrow({ where: { id: turnId }, select: { runner: true } });
    expect(runner).toBeTruthy();

    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner: null } });
    await new Promise((resolve) => setTimeout(resolve, 400)); // ~8 beats see the tree let go of
    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner } });
    const following = followTurn(env.server.url, user, sent.turn.id);
    held.release();

    const events = await following;
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    expect(contentOf(events)).toBe('still here');
    expect(log.lines().filter((line) => line.msg === TOOK_OVER)).toEqual([]);
  });

  it('still stops a tree that another process took over', async () => {
    const user = newUser(env.server.url);
    const held = env.fake.holdNext('/v1/chat/completions');
    env.fake.enqueue({ text: ['never ', 'seen'] });
    const sent = await send(user, { content: 'hello' });
    await held.reached;
    const turnId = decodeGlobalID(sent.turn.id).id;

    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner: 'another-process' } });
    const deadline = Date.now() + 10_000;
    while (!log.lines().some((line) => line.msg === TOOK_OVER && line.rootId === turnId)) {
      if (Date.now() > deadline) throw new Error('the takeover was not noticed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    held.release();
    // The stopped run's held request still takes its scripted reply once released.
    while (env.fake.pending > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
