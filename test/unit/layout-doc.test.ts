import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LAYOUT_DOC, withLayersBlock } from '../support/layers.js';

describe('docs/layout.md', () => {
  it('shows the layer order the import-graph test checks (npm run docs:layout rewrites it)', () => {
    const doc = readFileSync(LAYOUT_DOC, 'utf8');
    expect(doc).toBe(withLayersBlock(doc));
  });
});
