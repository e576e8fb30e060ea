import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { send, useAgentServer } from '../support/agents.js';
import type { Page } from 'playwright-core';
import { useChromium } from './chromium.js';

// With a DEFAULT_USER, GraphiQL subscribes over graphql-ws (its socket carries no headers).
const env = useAgentServer({ DEFAULT_USER: 'local-user' });
const browser = useChromium();

/** The response pane's text (Monaco draws spaces as no-break spaces). */
const responseText = async (page: Page) => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');

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

  it('runs a subscription over graphql-ws and shows its events', async () => {
    // GraphiQL's prefilled headers name the server's default user, so the turn is theirs.
    const user = newUser(env.server.url, 'default', { 'x-user-id': 'local-user' });
    env.fake.enqueue({ text: ['Hello ', 'from ', 'a ', 'live ', 'turn.'], delayMs: 200 });
    const sent = await send(user, { content: 'say hello' });
    const query = `subscription Watch {
  turnEvents(turnId: "${sent.turn.id}") { __typename ... on TurnEvent { seq } ... on ContentEvent { delta } ... on FinalEvent { status content } }
}`;
    const page = await browser.open(`${env.server.url}?query=${encodeURIComponent(query)}`);
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => responseText(page), { timeout: 60_000 }).toContain('"status": "COMPLETED"');
    expect(await responseText(page)).toContain('"content": "Hello from a live turn."');
    expect(sockets).toEqual([env.server.url.replace(/^http/, 'ws')]);
    await browser.screenshot(page, 'graphiql-subscription');
    expect(page.problems).toEqual([]);
  });
});
