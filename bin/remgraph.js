#!/usr/bin/env node
// The `remgraph` command: runs the TypeScript CLI (src/main.ts) through tsx, with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
