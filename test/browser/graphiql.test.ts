import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { useAgentServer } from '../support/agents.js';
import type { Page } from 'playwright-core';
import { useChromium, type OpenPage } from './chromium.js';

const SECRET = 'graphiql-suite-secret-that-is-long-enough-for-hs256';

// The default settings: header identity and no DEFAULT_USER, so only GraphiQL's headers name the caller.
const env = useAgentServer();
const jwtEnv = useAgentServer({ AUTH_JWT_SECRET: SECRET });
const browser = useChromium();

/** The response pane's text (Monaco draws spaces as no-break spaces). */
const responseText = async (page: Page) => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');

/** Opens one of the README's example tabs (by keyboard: the tab strip is a drag list that headless clicks do not select). */
async function openTab(page: Page, name: string) {
  await page.locator(`.graphiql-tab-button[title="${name}"]`).press('Enter');
  await page.locator('.graphiql-tab-active', { hasText: name }).waitFor();
}

/** Replaces the text of the current tab's variables or headers editor, as typed. */
async function fillEditor(page: Page, editor: 'Variables' | 'Headers', text: string) {
  await page.locator('.graphiql-editor-tools button', { hasText: editor }).click();
  await page.locator(`.monaco-editor[data-uri$="-${editor === 'Variables' ? 'variables' : 'request-headers'}.json"]`).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/**
 * The README's walk-through: run the "Send" tab, paste its turn.id into the "Follow" tab's
 * variables and run that; resolves with what "Follow" showed once the turn finished. `headers`
 * replaces each tab's headers first (a token, with JWT auth).
 */
async function sendThenFollow(page: OpenPage, headers?: Record<string, string>) {
  await page.locator('.graphiql-execute-button').waitFor();
  await openTab(page, 'Send');
  if (headers) await fillEditor(page, 'Headers', JSON.stringify(headers));
  // The turn id as GraphiQL received it (the response pane wraps long lines).
  const sent = page.waitForResponse((response) => response.request().postData()?.includes('sendMessage') ?? false);
  await page.locator('.graphiql-execute-button').click();
  const { data } = await (await sent).json();
  expect(data.sendMessage.__typename, JSON.stringify(data)).toBe('SendMessagePayload');
  await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain(data.sendMessage.turn.id);

  await openTab(page, 'Follow');
  if (headers) await fillEditor(page, 'Headers', JSON.stringify(headers));
  await fillEditor(page, 'Variables', JSON.stringify({ turnId: data.sendMessage.turn.id, after: 0 }));
  await page.locator('.graphiql-execute-button').click();
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
    const { shown, last } = await sendThenFollow(page);
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
    const { shown, last } = await sendThenFollow(page, { Authorization: `Bearer ${token}` });
    expect(shown).toContain('ContentEvent');
    expect(last).toContain('"status": "COMPLETED"');
    expect(last).toContain('"content": "Signed and followed."');
    await browser.screenshot(page, 'graphiql-follow-jwt');
    // Only GraphiQL's schema fetches with the placeholder token, before one was pasted, were refused.
    expect(refused.filter((authorization) => authorization !== 'Bearer <paste a token>')).toEqual([]);
    expect(page.problems.filter((problem) => !problem.includes('401 (Unauthorized)'))).toEqual([]);
  });
});
