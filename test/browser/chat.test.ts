import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { GATED_AGENT, registerAgent, startAgentServer, useAgentServer } from '../support/agents.js';
import type { DynamicScript, Script } from '../support/fake-openai.js';
import { CreateSessionDocument, UpsertEntityDocument } from '../generated/graphql.js';
import { useChromium, type OpenPage } from './chromium.js';

const env = useAgentServer();
const browser = useChromium();

const appUrl = () => new URL('/', env.server.url).href;
const identity = (user: Caller) => ({ mode: 'headers', userId: user.headers['x-user-id'], tenantId: user.headers['x-tenant-id'] });

async function openApp(user: Caller): Promise<OpenPage> {
  const page = await browser.open(appUrl(), identity(user));
  await page.getByTestId('message-input').waitFor();
  return page;
}

async function say(page: OpenPage, text: string) {
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
}

const turn = (page: OpenPage, status?: string) => page.locator(`[data-testid=turn]${status ? `[data-status=${status}]` : ''}`).last();

/** Status and answer text of the last turn, read in one go. */
const lastTurnState = (page: OpenPage) =>
  turn(page).evaluate((el: any) => ({
    status: el.dataset.status as string,
    answer: [...el.querySelectorAll(':scope > .run > [data-testid=answer]')].map((a: any) => a.innerText).join('\n'),
  }));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the chat app in Chromium', () => {
  it('streams an answer into the page as the model writes it, rendered as markdown', async () => {
    const user = newUser(env.server.url);
    const words = Array.from({ length: 24 }, (_, i) => `word${i} `);
    env.fake.enqueue({ text: ['Here is **bold** text: ', ...words], delayMs: 120 });
    const page = await openApp(user);
    await say(page, 'Stream something');

    const partial = await until(
      () => lastTurnState(page),
      (s) => s.answer.length > 0,
    );
    expect(partial.status).toBe('RUNNING');
    await browser.screenshot(page, 'chat-streaming');
    await turn(page, 'COMPLETED').waitFor();
    const full = await lastTurnState(page);
    expect(full.answer).toBe(`Here is bold text: ${words.join('').trim()}`);
    expect(full.answer.startsWith(partial.answer.replace(/▍$/, '').trim())).toBe(true);
    expect(partial.answer.length).toBeLessThan(full.answer.length);
    expect(await turn(page).locator('strong').innerText()).toBe('bold');
    await browser.screenshot(page, 'chat-streamed');
    expect(page.problems).toEqual([]);
  });

  it('shows an approval card that survives a reload, and finishes the turn once approved', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'publish', payload: { post: 'release notes' } } }] });
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('careful');
    await say(page, 'Publish the release notes');

    const card = page.getByTestId('approval-card');
    await card.waitFor();
    expect(await card.innerText()).toContain('careful wants to run action');
    await turn(page, 'AWAITING_APPROVAL').waitFor();
    await browser.screenshot(page, 'approval-pending');

    await page.reload();
    await card.waitFor();
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    await browser.screenshot(page, 'approval-after-reload');

    env.fake.enqueue({ text: 'Published the release notes.' });
    await card.getByPlaceholder('Reason (optional)').fill('checked the notes');
    await card.getByRole('button', { name: 'Approve' }).click();
    await turn(page, 'COMPLETED').waitFor();
    expect(await card.innerText()).toContain('Approved');
    expect(await card.innerText()).toContain('checked the notes');
    expect((await lastTurnState(page)).answer).toBe('Published the release notes.');
    await browser.screenshot(page, 'approval-done');
    expect(page.problems).toEqual([]);
  });

  it('resumes a turn after a reload mid-stream, with nothing missing or repeated', async () => {
    const user = newUser(env.server.url);
    const words = Array.from({ length: 40 }, (_, i) => `w${i} `);
    env.fake.enqueue({ text: words, delayMs: 100 });
    const page = await openApp(user);
    await say(page, 'Write a long answer');

    const before = await until(
      () => lastTurnState(page),
      (s) => s.answer.split(' ').length >= 5,
    );
    expect(before.status).toBe('RUNNING');
    await browser.screenshot(page, 'reload-before');
    await page.reload();
    await turn(page, 'COMPLETED').waitFor();
    expect((await lastTurnState(page)).answer).toBe(words.join('').trim());
    await browser.screenshot(page, 'reload-after');
    expect(page.problems).toEqual([]);
  });

  it('shows the child agents live, nested, with a child’s approval card while another child streams', async () => {
    // A readable identity: this test's screenshot is the README's.
    const user = newUser(env.server.url, `acme-${randomUUID().slice(0, 6)}`, { 'x-user-id': 'dana' });
    const agent = (name: string, tools: string) => `name: ${name}\ndescription: You are ${name}.\ntools:\n${tools}`;
    await registerAgent(user, agent('coordinator', '  - name: ask_agent\n'));
    await registerAgent(user, agent('researcher', '  - name: action\n    requires_approval: true\n'));
    await registerAgent(user, agent('writer', '  - name: register_metadata\n'));
    const ask = (name: string, input: string) => ({ id: `ask-${name}`, name: 'ask_agent', arguments: { agent_name: name, input_text: input } });
    const draft = 'Revenue grew **12%** in Q3, led by the new subscription tier; churn fell to 2.1%. '.split(/(?<= )/);
    // The two children ask the model at once, in either order: each gets the reply meant for it.
    const children: DynamicScript = (request) => {
      const replies: Record<string, Script> = {
        researcher: {
          // Slower than the writer, so the screenshot shows the writer well under way.
          text: 'I will check the ledger before publishing. '.split(/(?<= )/),
          delayMs: 300,
          toolCalls: [{ id: 'publish', name: 'action', arguments: { type: 'publish_figures', payload: { quarter: 'Q3' } } }],
        },
        writer: { text: [...draft, ...draft], delayMs: 200 },
      };
      const system = String(request.body.messages[0].content);
      return replies[Object.keys(replies).find((name) => system.includes(`You are ${name}.`))!]!;
    };
    env.fake.enqueue(
      { text: 'Let me split this up. ', toolCalls: [ask('researcher', 'Verify the Q3 figures'), ask('writer', 'Draft the Q3 summary')] },
      children,
      children,
      { text: 'Figures verified and published.' },
      { text: 'The Q3 report is verified, published and summarised.' },
    );
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('coordinator');
    await say(page, 'Prepare the Q3 report');

    const researcher = page.locator('[data-testid=child-run][data-agent=researcher]');
    const writer = page.locator('[data-testid=child-run][data-agent=writer]');
    await researcher.getByTestId('approval-card').waitFor();
    await writer.getByTestId('answer').waitFor();
    expect(await researcher.locator('summary').first().innerText()).toContain('coordinator → researcher');
    expect(await writer.locator('.status').first().innerText()).toBe('running');
    await browser.screenshot(page, 'delegation-approval');

    await researcher.getByRole('button', { name: 'Approve' }).click();
    await turn(page, 'COMPLETED').waitFor();
    expect((await lastTurnState(page)).answer).toContain('The Q3 report is verified, published and summarised.');
    expect(await researcher.getByTestId('approval-card').innerText()).toContain('Approved');
    expect(await writer.getByTestId('answer').innerText()).toMatch(/^Revenue/);
    // Not asserted: the children's own final states. Events a sibling emits while the tree is
    // paused for an approval do not reach the parent's log yet (an engine issue, reported).
    await browser.screenshot(page, 'delegation-done');
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s sessions, cancel and memory panel', () => {
  it('creates, renames and deletes sessions, and cancels a running turn', async () => {
    const user = newUser(env.server.url);
    const page = await openApp(user);
    await page.getByTestId('new-session').click();
    const session = page.getByTestId('session');
    await expect.poll(() => session.count()).toBe(1);

    await session.hover();
    await session.getByTitle('Rename').click();
    await session.locator('input').fill('Quarterly planning');
    await session.locator('input').press('Enter');
    await session.getByText('Quarterly planning').waitFor();

    env.fake.enqueue({ text: ['Thinking ', 'about ', 'it'], stallAfterChunks: 2 });
    await say(page, 'Plan the quarter');
    expect(
      await until(
        () => lastTurnState(page),
        (s) => s.answer.length > 0,
      ),
    ).toEqual({ status: 'RUNNING', answer: 'Thinking' });
    // Enter while a turn runs says why nothing was sent.
    await say(page, 'And another thing');
    expect(await page.getByTestId('composer-hint').innerText()).toContain('A turn is still running');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await turn(page, 'CANCELLED').waitFor();
    // The provider never reported usage for the cut-off call: the tokens are counted by us, and say so.
    expect(await turn(page).locator('.usage').innerText()).toMatch(/^~\d+ tokens \(estimated\) · 1 model call$/);
    await browser.screenshot(page, 'sessions-cancelled');

    page.once('dialog', (dialog) => void dialog.accept());
    await session.hover();
    await session.getByTitle('Delete').click();
    await expect.poll(() => session.count()).toBe(0);
    expect(page.problems).toEqual([]);
  });

  it('offers only chat agents, and names a new chat from its first message', async () => {
    const user = newUser(env.server.url);
    const page = await openApp(user);
    const options = await page.getByTestId('agent-picker').locator('option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(['general', 'sample']));
    expect(options.filter((o) => /dreaming|router|answer-quality/.test(o))).toEqual([]);
    await page.getByTestId('new-session').click();
    const session = page.getByTestId('session');
    await session.getByText('New session').waitFor();
    env.fake.enqueue({ text: 'Happy to help.' });
    await say(page, 'Plan the team offsite\nin Lisbon');
    await turn(page, 'COMPLETED').waitFor();
    await session.getByText('Plan the team offsite').waitFor();
    expect(await session.count()).toBe(1);
    expect(page.problems).toEqual([]);
  });

  it('searches sessions by name; the identity popover closes on Escape and on a click outside', async () => {
    const user = newUser(env.server.url);
    for (const name of ['Quarterly planning', 'Offsite in Lisbon', 'Quarterly invoices']) await user.data(CreateSessionDocument, { input: { name } });
    const page = await openApp(user);
    await expect.poll(() => page.getByTestId('session').count()).toBe(3);
    await page.getByTestId('session-search').fill('quarterly');
    await expect.poll(() => page.getByTestId('session').allInnerTexts()).toEqual(['Quarterly invoices', 'Quarterly planning']);

    await page.getByTestId('identity').click();
    await page.getByTestId('identity-popup').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('identity-popup').waitFor({ state: 'detached' });
    await page.getByTestId('identity').click();
    await page.getByTestId('identity-popup').waitFor();
    await page.getByTestId('message-input').click();
    await page.getByTestId('identity-popup').waitFor({ state: 'detached' });
    expect(page.problems).toEqual([]);
  });

  it('runs REM queries and shows an entity with its edges', async () => {
    const user = newUser(env.server.url);
    for (const input of [
      {
        key: 'Sarah Chen',
        name: 'Sarah Chen',
        entityType: 'person',
        summary: 'Head of finance; approves invoices over 10k',
        tags: ['finance'],
        graphEdges: [{ dst: 'Finance Team', relType: 'leads' }],
      },
      { key: 'Finance Team', name: 'Finance Team', entityType: 'team', summary: 'Pays and approves invoices' },
    ]) {
      const result = await user.data(UpsertEntityDocument, { input });
      expect(result.upsertEntity.__typename).toBe('UpsertEntitySuccess');
    }
    const page = await openApp(user);
    await page.getByTestId('rem-query').fill('SEARCH "who approves invoices" LIMIT 5');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('rem-hit').first().waitFor();
    expect(await page.getByTestId('rem-hit').allInnerTexts()).toContainEqual(expect.stringContaining('sarah-chen'));
    await page.getByTestId('rem-hit').filter({ hasText: 'sarah-chen' }).click();
    const details = page.getByTestId('rem-details');
    await details.getByText('leads').waitFor();
    expect(await details.innerText()).toContain('Head of finance');
    expect(await details.innerText()).toContain('Finance Team');
    await browser.screenshot(page, 'memory-panel');
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app with JWT auth', () => {
  const SECRET = 'browser-suite-secret-of-at-least-32-chars';
  let jwt: Awaited<ReturnType<typeof startAgentServer>>;
  beforeAll(async () => {
    jwt = await startAgentServer({ AUTH_JWT_SECRET: SECRET });
  });
  afterAll(async () => {
    await jwt?.server.stop();
    await jwt?.fake.close();
  });

  it('asks for a token, then chats as the token’s user over HTTP and websockets', async () => {
    const token = await new SignJWT({ sub: 'jwt-user', tenant_id: 'jwt-tenant' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));
    jwt.fake.enqueue({ text: ['Signed ', 'in ', 'and ', 'streaming.'], delayMs: 50 });
    const page = await browser.open(new URL('/', jwt.server.url).href);
    await page.getByTestId('token-input').fill(token);
    await browser.screenshot(page, 'jwt-sign-in');
    await page.getByRole('button', { name: 'Use' }).click();
    expect(await page.getByTestId('identity').innerText()).toBe('jwt-user@jwt-tenant · JWT');

    await say(page, 'Hello with a token');
    await turn(page, 'COMPLETED').waitFor();
    expect((await lastTurnState(page)).answer).toBe('Signed in and streaming.');
    await browser.screenshot(page, 'jwt-chat');
    expect(jwt.fake.pending).toBe(0);
    // The 401 before signing in is the only expected failure.
    expect(page.problems.filter((p) => !p.includes('401'))).toEqual([]);
  });
});

/** True when the page scrolls sideways (the document wider than the window). */
const scrollsSideways = (page: OpenPage) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('the chat app’s approvals inbox', () => {
  it('shows a waiting turn of another session, badged, and decides it from the inbox', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'publish', payload: { post: 'launch post' } } }] });
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('careful');
    await say(page, 'Publish the launch post');
    await turn(page, 'AWAITING_APPROVAL').waitFor();
    const waitingSession = await page.evaluate(() => location.hash.replace('#/session/', ''));

    // Another chat: the first one's approval is still one click away.
    await page.getByTestId('new-session').click();
    await expect.poll(() => page.evaluate(() => location.hash.replace('#/session/', ''))).not.toBe(waitingSession);
    const badge = page.locator('[data-testid=session]', { hasText: 'Publish the launch post' }).getByTestId('session-waiting');
    await badge.waitFor();
    expect(await badge.innerText()).toBe('1');
    expect(await page.getByTestId('inbox-count').innerText()).toBe('1');

    await page.getByTestId('inbox-toggle').click();
    const item = page.getByTestId('inbox-item');
    await item.waitFor();
    expect(await item.getAttribute('data-session-id')).toBe(waitingSession);
    expect(await item.innerText()).toContain('careful wants to run action');
    expect(await item.innerText()).toContain('launch post');
    await browser.screenshot(page, 'approvals-inbox');

    env.fake.enqueue({ text: 'Published the launch post.' });
    await item.getByPlaceholder('Reason (optional)').fill('looks good');
    await item.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing is waiting for you.').waitFor();
    await badge.waitFor({ state: 'detached' });
    expect(await page.getByTestId('inbox-count').count()).toBe(0);

    await item.page().keyboard.press('Escape');
    await page.locator('[data-testid=session]', { hasText: 'Publish the launch post' }).locator('a').click();
    await turn(page, 'COMPLETED').waitFor();
    expect((await lastTurnState(page)).answer).toBe('Published the launch post.');
    expect(await page.getByTestId('approval-card').innerText()).toContain('looks good');
    await browser.screenshot(page, 'approvals-inbox-decided');
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s run inspector', () => {
  it('shows a turn’s two model calls and its tool call as a waterfall, with the exact request body', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: noter\ndescription: You record observations.\ntools:\n  - name: action\n');
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'obs', name: 'action', arguments: { type: 'observation', payload: { mood: 'curious' } } }],
        usage: { prompt_tokens: 120, completion_tokens: 9 },
      },
      { text: 'Noted your mood.', usage: { prompt_tokens: 150, completion_tokens: 4 } },
    );
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('noter');
    await say(page, 'Note that I am curious');
    await turn(page, 'COMPLETED').waitFor();
    expect(await turn(page).locator('.usage').innerText()).toBe('283 tokens · 2 model calls');

    await turn(page).getByTestId('inspect').click();
    const inspector = page.getByTestId('inspector');
    await inspector.getByTestId('span').first().waitFor();
    const kinds = await inspector.getByTestId('span').evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.kind));
    expect(kinds).toEqual(['model', 'tool', 'model']);
    const model = inspector.locator('[data-kind=model]');
    expect(await model.first().innerText()).toContain('120+9 tokens · tool_calls');
    expect(await model.last().innerText()).toContain('150+4 tokens · stop');
    const tool = inspector.locator('[data-kind=tool]');
    expect(await tool.innerText()).toContain('action');
    expect(await tool.innerText()).toMatch(/done · \d+ ms/);
    await model.last().locator('summary').click();
    await tool.locator('summary').click();
    const body = await model.last().locator('pre').innerText();
    expect(JSON.parse(body).messages.at(-1).role).toBe('tool');
    expect(await tool.locator('pre').first().innerText()).toContain('curious');
    await browser.screenshot(page, 'run-inspector');
    await page.keyboard.press('Escape');
    await inspector.waitFor({ state: 'detached' });
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s run inspector, for a delegating turn', () => {
  it('nests a child turn’s own model calls and tool call under the child', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: coordinator\ndescription: You delegate.\ntools:\n  - name: ask_agent\n');
    await registerAgent(user, 'name: researcher\ndescription: You research.\ntools:\n  - name: action\n');
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'researcher', input_text: 'Look it up' } }],
        usage: { prompt_tokens: 100, completion_tokens: 5 },
      },
      {
        toolCalls: [{ id: 'obs', name: 'action', arguments: { type: 'observation', payload: { found: 'ledger' } } }],
        usage: { prompt_tokens: 60, completion_tokens: 3 },
      },
      { text: 'Found the ledger.', usage: { prompt_tokens: 70, completion_tokens: 2 } },
      { text: 'The researcher found the ledger.', usage: { prompt_tokens: 130, completion_tokens: 4 } },
    );
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('coordinator');
    await say(page, 'Find the ledger');
    await turn(page, 'COMPLETED').waitFor();

    await turn(page).getByTestId('inspect').click();
    const inspector = page.getByTestId('inspector');
    await inspector.getByTestId('span').first().waitFor();
    const rows = await inspector
      .getByTestId('span')
      .evaluateAll((els) => els.map((el) => `${'  '.repeat(Number((el as HTMLElement).dataset.depth))}${el.querySelector('.span-label')!.textContent}`));
    expect(rows).toEqual(['model call 1', 'ask_agent', 'child: researcher', '  model call 1', '  action', '  model call 2', 'model call 2']);
    const nested = inspector.locator('[data-kind=model][data-depth="1"]');
    expect(await nested.first().innerText()).toContain('60+3 tokens · tool_calls');
    expect(await nested.last().innerText()).toContain('70+2 tokens · stop');
    await nested.last().locator('summary').click();
    expect(JSON.parse(await nested.last().locator('pre').innerText()).messages.at(-1).role).toBe('tool');
    // The child's bar spans what ran inside it: from its first model call to its end.
    const left = (kind: string, depth: number) =>
      inspector
        .locator(`[data-kind=${kind}][data-depth="${depth}"] .span-bar`)
        .first()
        .evaluate((el) => parseFloat((el as HTMLElement).style.left));
    expect(await left('child', 0)).toBeLessThanOrEqual(await left('model', 1));
    await browser.screenshot(page, 'run-inspector-child');
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s fork and replay', () => {
  it('replays a turn with another model and compares the two side by side, showing the changed tool argument', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: noter\ndescription: You record observations.\ntools:\n  - name: action\n');
    const noted = (mood: string, text: string): Script[] => [
      { toolCalls: [{ id: `obs-${mood}`, name: 'action', arguments: { type: 'observation', payload: { mood } } }] },
      { text },
    ];
    env.fake.enqueue(...noted('curious', 'Noted: you are curious.'), ...noted('eager', 'Noted: you are eager.'));
    const page = await openApp(user);
    await page.getByTestId('agent-picker').selectOption('noter');
    await say(page, 'Note my mood');
    await turn(page, 'COMPLETED').waitFor();

    await turn(page).getByTestId('replay').click();
    const form = page.getByTestId('replay-form');
    await form.getByTestId('replay-model').fill('openai:other-model');
    await form.getByTestId('replay-temperature').fill('0.3');
    await form.getByTestId('replay-suffix').fill('Be brief.');
    await browser.screenshot(page, 'replay-form');
    await form.getByTestId('replay-submit').click();

    const compare = page.getByTestId('compare');
    await compare.getByTestId('tool-change').waitFor();
    expect(env.fake.chatRequests.at(-1)!.body).toMatchObject({ model: 'other-model', temperature: 0.3 });
    const sides = compare.getByTestId('compare-meta');
    expect(await sides.first().innerText()).toContain('noter · openai:fake-model');
    expect(await sides.last().innerText()).toContain('noter · openai:other-model');
    const change = compare.getByTestId('tool-change');
    expect(await change.getAttribute('data-op')).toBe('CHANGED');
    expect(await change.locator('.tool-change-head').innerText()).toContain('arguments changed: payload');
    expect(await change.getByTestId('changed-argument').allInnerTexts()).toEqual(['payload\n{"mood":"curious"}', 'payload\n{"mood":"eager"}']);
    const diff = await compare
      .getByTestId('text-diff')
      .locator('li')
      .evaluateAll((els) => els.map((el) => `${(el as HTMLElement).dataset.op} ${el.lastChild!.textContent}`));
    expect(diff).toEqual(['REMOVED Noted: you are curious.', 'ADDED Noted: you are eager.']);
    await browser.screenshot(page, 'replay-compare');
    await page.keyboard.press('Escape');
    await compare.waitFor({ state: 'detached' });

    // Fork here: a new session holding the conversation up to that answer, which the fork shows as copied.
    const before = await page.evaluate(() => location.hash);
    await turn(page).getByTestId('fork').click();
    await page.waitForFunction((hash) => location.hash !== hash, before);
    await page.getByTestId('copied-answer').waitFor();
    expect(await page.getByTestId('copied-answer').locator('.md').innerText()).toBe('Noted: you are curious.');
    expect((await page.getByTestId('user-message').allInnerTexts()).map((t) => t.split('\n')[0])).toEqual(['Note my mood']);
    expect(await page.getByTestId('turn').count()).toBe(0);
    expect(await page.locator('.topbar .title').innerText()).toBe('Note my mood (fork)');
    await browser.screenshot(page, 'fork');
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s message actions and uploads', () => {
  it('regenerates an answer as a new turn from the same user message, and puts a message back to edit', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'First take: **short**.' });
    const page = await openApp(user);
    await say(page, 'Summarise the roadmap');
    await turn(page, 'COMPLETED').waitFor();
    expect((await lastTurnState(page)).answer).toBe('First take: short.');

    env.fake.enqueue({ text: 'Second take, longer:\n\n```ts\nconst plan = { q1: "search", q2: "agents" };\n```' });
    await turn(page).getByTestId('regenerate').click();
    await expect.poll(() => page.getByTestId('turn').count()).toBe(2);
    await turn(page, 'COMPLETED').waitFor();
    await expect.poll(() => page.locator('[data-testid=turn][data-status=COMPLETED]').count()).toBe(2);
    expect((await lastTurnState(page)).answer).toContain('Second take, longer:');
    const asked = env.fake.chatRequests.slice(-2).map((r) => r.body.messages.at(-1));
    expect(asked).toEqual([
      { role: 'user', content: 'Summarise the roadmap' },
      { role: 'user', content: 'Summarise the roadmap' },
    ]);
    // The same stored message is answered again: shown once, and the model does not read the old answer.
    expect(JSON.stringify(env.fake.chatRequests.at(-1)!.body.messages)).not.toContain('First take');
    expect(await page.getByTestId('user-message').count()).toBe(1);
    expect(await turn(page).locator('pre code .hljs-keyword').first().innerText()).toBe('const');
    expect(await turn(page).locator('pre code .hljs-string').count()).toBe(2);
    expect(await turn(page).locator('[data-copy-code]').count()).toBe(1);
    expect(await turn(page).locator('time').count()).toBe(1);
    await browser.screenshot(page, 'regenerate');

    await page.getByTestId('user-message').first().getByTestId('edit').click();
    await expect.poll(() => page.getByTestId('message-input').inputValue()).toBe('Summarise the roadmap');
    expect(page.problems).toEqual([]);
  });

  it('uploads a file into memory, showing ingestFile’s progress stages', async () => {
    const user = newUser(env.server.url);
    const page = await openApp(user);
    const text = Array.from({ length: 30 }, (_, i) => `## Section ${i}\n\nThe handbook says rule ${i} applies to every invoice over ${i}k.`).join('\n\n');
    await page.getByTestId('file-input').setInputFiles({ name: 'handbook.md', mimeType: 'text/markdown', buffer: Buffer.from(text) });
    const upload = page.getByTestId('upload');
    await page.locator('[data-testid=upload][data-stage=DONE]').waitFor();
    expect(await upload.getAttribute('data-stages')).toMatch(/EXTRACTING.*EMBEDDING.*STORING/);
    expect(await upload.innerText()).toMatch(/handbook\.md[\s\S]*done · \d+ chunks?/);
    await browser.screenshot(page, 'upload-progress');

    await page.getByTestId('rem-query').fill('SEARCH "rule 7 invoice" LIMIT 3');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('rem-hit').first().waitFor();
    expect(page.problems).toEqual([]);
  });
});

describe('the chat app’s layout and themes', () => {
  it('fits a 390 px phone without sideways scrolling, with sessions and memory as drawers', async () => {
    const user = newUser(env.server.url);
    const page = await openApp(user);
    await page.setViewportSize({ width: 390, height: 780 });
    const table = '| name | role | team | notes |\n| --- | --- | --- | --- |\n| Sarah Chen | head of finance | finance | approves invoices over 10k |';
    const wide = `A long line: ${'x'.repeat(300)}\n\n${table}\n\n\`\`\`ts\nconst veryLongIdentifier = ${'"y" + '.repeat(40)}1;\n\`\`\``;
    env.fake.enqueue({ text: wide });
    await say(page, 'Show me something wide');
    await turn(page, 'COMPLETED').waitFor();
    // The session list slides out of view when the page narrows (a 0.2 s transition).
    await page.getByTestId('session').first().waitFor({ state: 'hidden' });
    expect(await scrollsSideways(page)).toBe(false);
    await browser.screenshot(page, 'layout-phone');

    // Drawers slide in: screenshots wait until one is fully on screen.
    const settled = (selector: string) => expect.poll(() => page.locator(selector).evaluate((el) => el.getAnimations().length)).toBe(0);
    await page.getByTestId('sessions-toggle').click();
    await page.getByTestId('session').first().waitFor({ state: 'visible' });
    await settled('.sessions');
    expect(await scrollsSideways(page)).toBe(false);
    await browser.screenshot(page, 'layout-phone-sessions');
    await page.keyboard.press('Escape');
    await page.getByTestId('session').first().waitFor({ state: 'hidden' });

    await page.getByTestId('memory-toggle').click();
    await page.getByTestId('rem-query').waitFor({ state: 'visible' });
    await settled('.memory');
    expect(await scrollsSideways(page)).toBe(false);
    await browser.screenshot(page, 'layout-phone-memory');
    expect(page.problems).toEqual([]);
  });

  it('follows prefers-color-scheme: dark, and the toggle switches to light and back', async () => {
    const user = newUser(env.server.url);
    const page = await openApp(user);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const dark = await background();
    expect(dark).not.toBe(light);
    env.fake.enqueue({ text: 'Dark and **readable**, with `code`:\n\n> a quote\n\n```\nprint("hi")\n```' });
    await say(page, 'Hello in the dark');
    await turn(page, 'COMPLETED').waitFor();
    await browser.screenshot(page, 'theme-dark');

    await page.getByTestId('theme-toggle').click();
    await expect.poll(background).toBe(light);
    await page.reload();
    await page.getByTestId('message-input').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(background).toBe(dark);
    expect(page.problems).toEqual([]);
  });
});
