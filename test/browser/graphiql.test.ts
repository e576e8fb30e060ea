import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { followTurn, GATED_AGENT, registerAgent, send, untilPaused, useAgentServer } from '../support/agents.js';
import { caller } from '../support/client.js';
import type { FakeOpenAI } from '../support/fake-openai.js';
import type { Page } from 'playwright-core';
import { useChromium, type OpenPage } from './chromium.js';

const SECRET = 'graphiql-suite-secret-that-is-long-enough-for-hs256';

// The default settings: header identity and no DEFAULT_USER, so only GraphiQL's headers name the caller.
const env = useAgentServer();
const jwtEnv = useAgentServer({ AUTH_JWT_SECRET: SECRET });
const browser = useChromium();

/** The response pane's text (Monaco draws spaces as no-break spaces). */
const responseText = async (page: Page) => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');

/**
 * Opens one of the README's example tabs (by keyboard: the tab strip is a drag list that headless
 * clicks do not select), and waits until GraphiQL has read its operations: it does so 100 ms after
 * the editor changes, and until then the run button sends the previous tab's operation name
 * ("Cannot infer operation …"). GraphiQL puts the document it read in the address's `query`.
 */
async function openTab(page: Page, name: string) {
  await page.locator(`.graphiql-tab-button[title="${name}"]`).press('Enter');
  await page.locator('.graphiql-tab-active', { hasText: name }).waitFor();
  await page.waitForFunction(
    (operation) => new RegExp(`(query|mutation|subscription) ${operation}\\b`).test(new URLSearchParams(location.search).get('query') ?? ''),
    name,
  );
}

/** Replaces the text of the current tab's variables or headers editor, as typed. */
async function fillEditor(page: Page, editor: 'Variables' | 'Headers', text: string) {
  await page.locator('.graphiql-editor-tools button', { hasText: editor }).click();
  await page.locator(`.monaco-editor[data-uri$="-${editor === 'Variables' ? 'variables' : 'request-headers'}.json"]`).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Runs the current tab's operation called `name`: with several in a tab, GraphiQL's run button opens a menu of them. */
async function runOperation(page: Page, name: string) {
  await page.locator('.graphiql-execute-button').click();
  await page.getByRole('menuitem', { name, exact: true }).click();
}

/** The body of the next response GraphiQL receives for the operation called `operationName`. */
function nextResponse(page: Page, operationName: string) {
  return page
    .waitForResponse((response) => response.request().postDataJSON()?.operationName === operationName)
    .then(async (response) => (await response.json()) as { data?: Record<string, any>; errors?: unknown });
}

/**
 * The README's walk-through: run the "Send" tab, paste its turn.id into the "Follow" tab's
 * variables and run that; resolves with what "Follow" showed once the turn finished. `headers`
 * replaces each tab's headers first (a token, with JWT auth).
 */
async function sendThenFollow(page: OpenPage, fake: FakeOpenAI, headers?: Record<string, string>) {
  await page.locator('.graphiql-execute-button').waitFor();
  // The model answers only once Follow's subscription is open, so the events stream to the tab
  // (however slow the machine) instead of being replayed at once after the turn ended.
  const model = fake.holdNext('/v1/chat/completions');
  await openTab(page, 'Send');
  if (headers) await fillEditor(page, 'Headers', JSON.stringify(headers));
  // The turn id as GraphiQL received it (the response pane wraps long lines).
  const sent = page.waitForResponse((response) => response.request().postData()?.includes('sendMessage') ?? false);
  await page.locator('.graphiql-execute-button').click();
  const { data, errors } = await (await sent).json();
  expect(errors).toBeUndefined();
  expect(data.sendMessage.__typename, JSON.stringify(data)).toBe('SendMessagePayload');
  await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain(data.sendMessage.turn.id);

  await openTab(page, 'Follow');
  if (headers) await fillEditor(page, 'Headers', JSON.stringify(headers));
  await fillEditor(page, 'Variables', JSON.stringify({ turnId: data.sendMessage.turn.id, after: 0 }));
  // SSE is a GET: the operation is in the URL.
  const following = page.waitForResponse((response) => response.url().includes('turnEvents'));
  await page.locator('.graphiql-execute-button').click();
  await following;
  model.release();
  // GraphiQL shows each event as it arrives, the latest in place of the one before.
  const shown = new Set<string>();
  await expect
    .poll(
      async () => {
        const text = await responseText(page);
        shown.add(/"__typename": "(\w+)"/.exec(text)?.[1] ?? text);
        return text;
      },
      { timeout: 60_000 },
    )
    .toContain('"__typename": "FinalEvent"');
  return { shown, last: await responseText(page) };
}

describe('GraphiQL in Chromium', () => {
  it('loads with nothing from outside the server, opens the README examples as tabs and runs a query', async () => {
    const origin = new URL(env.server.url).origin;
    const page = await browser.open(env.server.url);
    await page.locator('.graphiql-execute-button').waitFor();
    expect(await page.locator('.graphiql-tab').allInnerTexts()).toEqual(['Me', 'Send', 'Follow', 'Pending', 'Remember']);

    await page.locator('.graphiql-execute-button').click();
    // The prefilled identity headers were sent.
    await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('"userId": "local-user"');
    expect(await responseText(page)).toContain('"authMode": "HEADERS"');
    await browser.screenshot(page, 'graphiql-query');

    const outside = page.requests.filter((url) => !url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:'));
    expect(outside).toEqual([]);
    expect(page.problems).toEqual([]);
  });

  it('runs "Send" then "Follow" with its default settings and streams the turn to its end', async () => {
    env.fake.enqueue({ text: ['Hello ', 'from ', 'a ', 'live ', 'turn.'], delayMs: 300 });
    const page = await browser.open(env.server.url);
    const { shown, last } = await sendThenFollow(page, env.fake);
    expect(shown).toContain('ContentEvent');
    expect(last).toContain('"status": "COMPLETED"');
    expect(last).toContain('"content": "Hello from a live turn."');
    await browser.screenshot(page, 'graphiql-follow');
    expect(page.problems).toEqual([]);
  });

  it('with JWT auth, runs "Send" then "Follow" under the token pasted into its headers', async () => {
    const token = await new SignJWT({ sub: 'graphiql-user', tenant_id: 'graphiql' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));
    jwtEnv.fake.enqueue({ text: ['Signed ', 'and ', 'followed.'], delayMs: 300 });
    const refused: string[] = [];
    const page = await browser.open(jwtEnv.server.url);
    page.on('response', (response) => response.status() === 401 && refused.push(response.request().headers().authorization ?? 'none'));
    const { shown, last } = await sendThenFollow(page, jwtEnv.fake, { Authorization: `Bearer ${token}` });
    expect(shown).toContain('ContentEvent');
    expect(last).toContain('"status": "COMPLETED"');
    expect(last).toContain('"content": "Signed and followed."');
    await browser.screenshot(page, 'graphiql-follow-jwt');
    // Only GraphiQL's schema fetches with the placeholder token, before one was pasted, were refused.
    expect(refused.filter((authorization) => authorization !== 'Bearer <paste a token>')).toEqual([]);
    expect(page.problems.filter((problem) => !problem.includes('401 (Unauthorized)'))).toEqual([]);
  });

  it('walks every example tab in order with its default settings, as the README tells a newcomer', async () => {
    // A first visit: without the tabs GraphiQL kept (in localStorage) from the tests before.
    const page = await browser.open('about:blank');
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(env.server.url).origin, storageTypes: 'local_storage' });
    await page.goto(env.server.url);
    await page.locator('.graphiql-tab-active', { hasText: 'Me' }).waitFor();

    const me = nextResponse(page, 'Me');
    await page.locator('.graphiql-execute-button').click();
    const meBody = await me;
    expect(meBody.errors).toBeUndefined();
    expect(meBody.data!.viewer).toMatchObject({ userId: 'local-user', authMode: 'HEADERS' });
    await browser.screenshot(page, 'graphiql-tab-me');

    env.fake.enqueue({ text: ['Tabs ', 'in ', 'order.'], delayMs: 300 });
    const { last } = await sendThenFollow(page, env.fake);
    expect(last).not.toContain('"errors"');
    expect(last).toContain('"content": "Tabs in order."');
    await browser.screenshot(page, 'graphiql-tab-follow');

    // The default agent makes no gated call: the same identity as GraphiQL's headers starts a turn of an agent that does.
    const local = caller(env.server.url, { 'x-user-id': 'local-user', 'x-tenant-id': 'default' });
    await registerAgent(local, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'tab-gate', name: 'action', arguments: { type: 'publish', payload: { post: 'notes' } } }] });
    const gated = await send(local, { content: 'Publish the notes', agent: 'careful' });
    await untilPaused(env.server.url, local, gated.turn.id);

    await openTab(page, 'Pending');
    const listed = nextResponse(page, 'Pending');
    await runOperation(page, 'Pending');
    const pending = await listed;
    expect(pending.errors).toBeUndefined();
    const approval = pending.data!.approvals.edges.map((edge: any) => edge.node).find((node: any) => node.turn.id === gated.turn.id);
    expect(approval).toMatchObject({ toolName: 'action', agentPath: ['careful'] });
    await expect.poll(() => responseText(page)).toContain('"toolName": "action"');
    await browser.screenshot(page, 'graphiql-tab-pending');

    await fillEditor(page, 'Variables', JSON.stringify({ id: approval.id, approve: true, reason: 'looks right' }));
    env.fake.enqueue({ text: 'Published the notes.' });
    const decided = nextResponse(page, 'Decide');
    await runOperation(page, 'Decide');
    const decision = await decided;
    expect(decision.errors).toBeUndefined();
    expect(decision.data!.decideApproval).toEqual({ __typename: 'DecideApprovalSuccess', approval: { id: approval.id, status: 'APPROVED' } });
    await expect.poll(() => responseText(page)).toContain('"status": "APPROVED"');
    await browser.screenshot(page, 'graphiql-tab-decide');
    expect((await followTurn(env.server.url, local, gated.turn.id)).at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Published the notes.' });

    await openTab(page, 'Remember');
    const written = nextResponse(page, 'Remember');
    await runOperation(page, 'Remember');
    const write = await written;
    expect(write.errors).toBeUndefined();
    expect(write.data!.upsertEntity).toEqual({ __typename: 'UpsertEntitySuccess', entity: { key: 'sarah-chen' } });
    const recalled = nextResponse(page, 'Recall');
    await runOperation(page, 'Recall');
    const recall = await recalled;
    expect(recall.errors).toBeUndefined();
    expect(recall.data!.remQuery.hits).toContainEqual(
      expect.objectContaining({ key: 'sarah-chen', entityType: 'entities', summary: 'Head of finance; approves invoices over 10k' }),
    );
    await expect.poll(() => responseText(page)).toContain('"key": "sarah-chen"');
    await browser.screenshot(page, 'graphiql-tab-remember');
    expect(page.problems).toEqual([]);
  });
});
