import { readFile } from 'node:fs/promises';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../codegen.js';

describe('generated client documents', () => {
  it('match the committed output in */generated (run `npm run codegen` after changing operations)', async () => {
    const files = await generate({ ...config, cwd: new URL('../../', import.meta.url).pathname, silent: true }, false);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const committed = await readFile(new URL(`../../${file.filename}`, import.meta.url), 'utf8').catch(() => '<missing>');
      expect(committed, file.filename).toBe(file.content);
    }
  }, 60_000);
});
