import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Debian's chromium (apt-get install chromium); playwright never downloads a browser here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots of each state the browser suites reach (gitignored; kept by CI as artifacts). */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

// Without the background-networking flags Chromium keeps calling home, and this network refuses it.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A page with what went wrong on it, and every URL it requested. */
export type OpenPage = Page & { problems: string[]; requests: string[] };

export interface Browser {
  context: BrowserContext;
  /**
   * A page whose errors are collected for the test to check. `identity` (the chat app's
   * localStorage entry) is in place before the app starts, and again on every reload.
   */
  open(url: string, identity?: unknown): Promise<OpenPage>;
  /** Saves test-artifacts/<name>.png. */
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile. */
async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'remgraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 860 },
  });
  // Waits are for states, never for times; the generous limit only bounds a hung test on a busy machine.
  context.setDefaultTimeout(90_000);
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    context,
    async open(url, identity) {
      const page: OpenPage = Object.assign(await context.newPage(), { problems: [] as string[], requests: [] as string[] });
      page.on('request', (request) => page.requests.push(request.url()));
      if (identity) await page.addInitScript({ content: `localStorage.setItem('remgraph.identity', ${JSON.stringify(JSON.stringify(identity))})` });
      page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
      page.on('console', (message) => message.type() === 'error' && page.problems.push(`console: ${message.text()}`));
      await page.goto(url);
      return page;
    },
    screenshot: async (page, name) => void (await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) })),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** One Chromium for a whole test file: launched before the first test, closed after the last. */
export function useChromium(): Omit<Browser, 'close'> {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const launched = () => browser ?? raise('Chromium is not running: use the browser in tests, not at import time');
  return {
    get context() {
      return launched().context;
    },
    open: (url, identity) => launched().open(url, identity),
    screenshot: (page, name) => launched().screenshot(page, name),
  };
}

function raise(message: string): never {
  throw new Error(message);
}
