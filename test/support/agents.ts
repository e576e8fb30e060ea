import type { ExecutionResult } from 'graphql';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Caller } from './client.js';
import { collect, wsClient } from './client.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';
import {
  RegisterAgentDocument,
  SendMessageDocument,
  TurnDocument,
  TurnEventsDocument,
  type EventFieldsFragment,
  type SendMessageInput,
  type TurnEventsSubscription,
} from '../generated/graphql.js';

export type Event = EventFieldsFragment;

/** A real server whose default model is the fake OpenAI server. */
export async function startAgentServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<{ server: TestServer; fake: FakeOpenAI }> {
  const fake = await startFakeOpenAI();
  const server = await startTestServer(
    {
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: fake.url,
      LLM_DEFAULT_MODEL: 'openai:fake-model',
      LLM_RETRY_BASE_MS: '1',
      LLM_MAX_RETRIES: '2',
      ...env,
    },
    options,
  );
  return { server, fake };
}

/**
 * One agent server and fake model for a whole test file: started before the first test, stopped
 * after the last; after each test it checks that every scripted model reply was used.
 */
export function useAgentServer(env: Record<string, string> = {}, options: TestServerOptions = {}): { server: TestServer; fake: FakeOpenAI } {
  const ctx = {} as { server: TestServer; fake: FakeOpenAI };
  beforeAll(async () => {
    Object.assign(ctx, await startAgentServer(env, options));
  });
  afterAll(async () => {
    await ctx.server?.stop();
    await ctx.fake?.close();
  });
  afterEach(() => {
    expect(ctx.fake.pending, 'every scripted model reply was used').toBe(0);
    ctx.fake.reset();
  });
  return ctx;
}

/** An agent whose `action` tool needs a human decision. */
export const GATED_AGENT = `
name: careful
description: You act only with approval.
tools:
  - name: action
    requires_approval: true
  - name: register_metadata
`;

export async function send(user: Caller, input: SendMessageInput) {
  const data = await user.data(SendMessageDocument, { input });
  if (data.sendMessage.__typename !== 'SendMessagePayload') throw new Error(`sendMessage failed: ${JSON.stringify(data.sendMessage)}`);
  return data.sendMessage;
}

/** Follows a turn over graphql-ws until its final event and returns every event. */
export async function followTurn(url: string, user: Caller, turnId: string, after?: number): Promise<Event[]> {
  const client = wsClient(url, user.headers);
  try {
    const sub = collect(client, TurnEventsDocument, { turnId, after });
    const items = await sub.done;
    return items.map((item: ExecutionResult<TurnEventsSubscription>) => {
      if (item.errors) throw new Error(JSON.stringify(item.errors));
      return item.data!.turnEvents;
    });
  } finally {
    await client.dispose();
  }
}

/**
 * Follows a turn again and again (up to ~5 s) until the server refuses it; returns the refusal, or
 * undefined if it never came. For a turn whose session was deleted: the process that ran it forgets
 * it when the deletion reaches it (through the pubsub: with Redis, a moment later).
 */
export async function followUntilRefused(url: string, user: Caller, turnId: string): Promise<Error | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const refusal = await followTurn(url, user, turnId).then(
      () => undefined,
      (error: Error) => error,
    );
    if (refusal) return refusal;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

/** Follows a turn until it pauses for approval; returns the events so far. */
export async function untilPaused(url: string, user: Caller, turnId: string, approvalsExpected = 1): Promise<Event[]> {
  const client = wsClient(url, user.headers);
  try {
    const sub = collect(
      client,
      TurnEventsDocument,
      { turnId },
      (items) => items.filter((i) => i.data?.turnEvents.__typename === 'ApprovalNeededEvent').length >= approvalsExpected,
    );
    return (await sub.done).map((i) => i.data!.turnEvents);
  } finally {
    await client.dispose();
  }
}

/** Sends a message and follows the turn to its end. */
export async function chat(url: string, user: Caller, input: SendMessageInput) {
  const sent = await send(user, input);
  const events = await followTurn(url, user, sent.turn.id);
  const turn = (await user.data(TurnDocument, { id: sent.turn.id })).turn!;
  return { sent, events, turn };
}

/** Event types, with runs of content events collapsed to one `content*`. */
export function shape(events: Event[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const name = e.__typename
      .replace(/Event$/, '')
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase();
    const label = name === 'content' ? 'content*' : name;
    if (label === 'content*' && out[out.length - 1] === 'content*') continue;
    out.push(label);
  }
  return out;
}

export function contentOf(events: Event[]): string {
  return events.map((e) => (e.__typename === 'ContentEvent' ? e.delta : '')).join('');
}

export function expectGapFreeSeqs(events: Event[], from = 1) {
  expect(events.map((e) => ('seq' in e ? e.seq : -1))).toEqual(events.map((_, i) => from + i));
}

export async function registerAgent(user: Caller, yaml: string) {
  const data = await user.data(RegisterAgentDocument, { yaml });
  if (data.registerAgent.__typename !== 'RegisterAgentPayload') throw new Error(JSON.stringify(data.registerAgent));
  return data.registerAgent;
}
