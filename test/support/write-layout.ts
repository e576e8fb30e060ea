// `npm run docs:layout`: rewrites the layers block of docs/layout.md from test/support/layers.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { LAYOUT_DOC, withLayersBlock } from './layers.js';

writeFileSync(LAYOUT_DOC, withLayersBlock(readFileSync(LAYOUT_DOC, 'utf8')));
