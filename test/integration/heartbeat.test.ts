import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, contentOf, followTurn, send, useAgentServer } from '../support/agents.js';
import { capturingLogger } from '../support/log-capture.js';
import { backend } from '../support/server.js';

const log = capturingLogger();
// Beats every 50 ms (the least allowed), so that several fall inside the window a test opens.
const env = useAgentServer({ TURN_HEARTBEAT_MS: '50' }, { logger: log.logger });

const TOOK_OVER = 'another process took over a turn tree this process held; stopping its runs here';

/** A new user's turn, held at its model call (whose reply, once released, is `text`). */
async function heldAtModel(text: string[]) {
  const user = newUser(env.server.url);
  const held = env.fake.holdNext('/v1/chat/completions');
  env.fake.enqueue({ text });
  const sent = await send(user, { content: 'hello' });
  await held.reached;
  return { user, sent, turnId: decodeGlobalID(sent.turn.id).id, held };
}

describe('the heartbeat of held turn trees', () => {
  // A turn's outcome statement lets go of its tree in the database (runner NULL) a moment before
  // the process lets go of it in memory, delivering the final event to its followers on the way. A
  // beat in between took that for a takeover by another process and closed the turn in the hub:
  // the final event, already stored, never reached a follower who was live (seen once in a
  // 500-turn burst on PostgreSQL: the follower waited forever). Here the window is held open.
  it('does not take a tree nobody holds (its root just ended) for one taken over: the run goes on and followers get its end', async () => {
    const { user, sent, turnId, held } = await heldAtModel(['still ', 'here']);
    const { runner } = await env.server.db.prisma.turn.findUniqueOrThrow({ where: { id: turnId }, select: { runner: true } });
    expect(runner).toBeTruthy();

    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner: null } });
    // ~3 beats see the tree let go of. Short: on PostgreSQL other suites share the database, and their
    // sweeps take a RUNNING turn nobody holds for an orphan (it then ends INTERRUPTED).
    await new Promise((resolve) => setTimeout(resolve, 150));
    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner } });
    const following = followTurn(env.server.url, user, sent.turn.id);
    held.release();

    const events = await following;
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    expect(contentOf(events)).toBe('still here');
    expect(log.lines().filter((line) => line.msg === TOOK_OVER)).toEqual([]);
  });

  // A session deleted while its turn runs: the deletion's notice cancels the turn, but a beat may
  // find the root gone first. It took that for a takeover and closed the turn without its final
  // event, and the follower waited forever. Here no notice comes at all (the rows are deleted
  // directly, as by another instance whose notice was lost): the beat alone must end it. On
  // PostgreSQL the deletion commits while a beat waits on it, as seen under load: that beat's
  // statement began before the deletion and still saw the root, held here, but could not keep it.
  it('cancels a tree whose root was deleted with its session: its follower gets the end', async () => {
    const { user, sent, turnId, held } = await heldAtModel(['never ', 'seen']);
    try {
      const following = followTurn(env.server.url, user, sent.turn.id);
      await untilFollowed();

      const sessionId = decodeGlobalID(sent.session.id).id;
      if (backend() === 'postgres')
        await env.server.db.prisma.$transaction(
          async (tx) => {
            const { pid } = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!;
            await tx.session.delete({ where: { id: sessionId } });
            await untilBeatWaitsOn(pid);
          },
          { timeout: 15_000 },
        );
      else await env.server.db.prisma.session.delete({ where: { id: sessionId } });
      const noEnd = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the follower got no final event')), 20_000));
      const events = await Promise.race([following, noEnd]);
      expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'CANCELLED' });
      expect(log.lines().filter((line) => line.msg === TOOK_OVER && line.rootId === turnId)).toEqual([]);
    } finally {
      // A failure above must not leave the model call held: the later tests would wait on it.
      held.release();
      while (env.fake.pending > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  /**
   * Waits until a follower's subscription listens to a turn here (SIGUSR2 logs how many do): a fixed
   * pause was not always enough under load. A turn held at its model call has no event to wait on.
   */
  async function untilFollowed() {
    const deadline = Date.now() + 10_000;
    for (;;) {
      process.emit('SIGUSR2', 'SIGUSR2');
      const last = log.lines().findLast((line) => line.msg === 'diagnostics')?.diagnostics as { turnListeners: number };
      if (last.turnListeners > 0) return;
      if (Date.now() > deadline) throw new Error('the follower never subscribed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waits until a heartbeat's statement waits on the transaction of backend `pid` (PostgreSQL). */
  async function untilBeatWaitsOn(pid: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { waiting } = (
        await env.server.db.prisma.$queryRaw<{ waiting: number }[]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE ${pid}::int = ANY(pg_blocking_pids(pid)) AND query LIKE '%WITH kept AS (UPDATE turns SET heartbeat_at%'`
      )[0]!;
      if (waiting > 0) return;
      if (Date.now() > deadline) throw new Error('no heartbeat waited on the deletion');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Holds a turn at its model call, then hands its tree to "another process" and waits until this one notices. */
  async function takenOver(follow?: (user: Caller, turnGlobalId: string) => Promise<unknown>) {
    const { user, sent, turnId, held } = await heldAtModel(['never ', 'seen']);
    const following = follow?.(user, sent.turn.id);
    if (following) await untilFollowed();

    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { runner: 'another-process' } });
    const deadline = Date.now() + 10_000;
    while (!log.lines().some((line) => line.msg === TOOK_OVER && line.rootId === turnId)) {
      if (Date.now() > deadline) throw new Error('the takeover was not noticed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { user, turnId, following, release: held.release };
  }

  it('still stops a tree that another process took over', async () => {
    const { release } = await takenOver();
    release();
    // The stopped run's held request still takes its scripted reply once released.
    while (env.fake.pending > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });

  // Without Redis, another PostgreSQL instance's events reach this one only through the log. A
  // follower that was waiting for the turn's next event here when the tree was taken over used to
  // wait forever: nothing told it that the turn was now held elsewhere.
  it.runIf(backend() === 'postgres')('gives a follower here the end that the process which took the tree over writes to the log', async () => {
    // The end the other process writes: a finished turn's own final event, renumbered.
    const first = newUser(env.server.url);
    env.fake.enqueue({ text: ['done'] });
    const finished = await chat(env.server.url, first, { content: 'first' });
    const chunks = await env.server.db.prisma.turnEventChunk.findMany({ where: { turnId: decodeGlobalID(finished.sent.turn.id).id } });
    const final = chunks.flatMap((chunk) => chunk.events as Record<string, unknown>[]).find((event) => event.type === 'final')!;

    const { turnId, following, release } = await takenOver((user, id) => followTurn(env.server.url, user, id));
    const stored = await env.server.db.prisma.turnEventChunk.aggregate({ where: { turnId }, _max: { lastSeq: true } });
    const seq = (stored._max.lastSeq ?? 0) + 1;
    const end = { ...final, turnId, seq, status: 'INTERRUPTED', content: null, at: new Date().toISOString() };
    await env.server.db.prisma.turnEventChunk.create({ data: { turnId, seq, lastSeq: seq, events: [end] } });
    await env.server.db.prisma.turn.update({ where: { id: turnId }, data: { status: 'INTERRUPTED', lastSeq: seq, runner: null } });

    const events = (await following) as { __typename: string; status?: string; seq: number }[];
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'INTERRUPTED', seq });
    release();
    while (env.fake.pending > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
