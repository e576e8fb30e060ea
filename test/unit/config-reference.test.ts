import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { configReference } from '../../src/config/reference.js';

describe('docs/configuration.md', () => {
  it('is the page the config models print (run `npm run docs:config` after changing a setting)', async () => {
    const committed = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(configReference()).toBe(committed);
  });
});
