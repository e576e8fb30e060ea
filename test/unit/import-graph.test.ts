import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LAYERS, nodeOf, ranks, WEB_LAYERS, type Floor } from '../support/layers.js';

// The layout's rules (docs/layout.md): every import points to its own floor of LAYERS or a lower one
// (type imports count: they couple as much), so neither two folders of src/ nor two files import
// each other, directly or around a loop. A top-level file (app.ts, errors.ts, ...) is a node of its
// own. web/src keeps its own order (WEB_LAYERS). Files stay under 400 lines.
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const WEB = fileURLToPath(new URL('../../web/src/', import.meta.url));
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** Each source file under `root` and the source files it imports (wherever they are), generated code aside. */
function importGraph(root: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const targets = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      if (!specifier.startsWith('.')) continue;
      const target = [resolve(dirname(file), specifier).replace(/\.js$/, '.ts')].flatMap((ts) => [ts, `${ts}x`]).find((path) => existsSync(path));
      if (target && !target.includes('/generated/')) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The imports that point up the floors (`from → to`, relative to root), and the files no floor names. */
function rankViolations(root: string, layers: readonly Floor[], graph: Map<string, Set<string>>) {
  const rank = ranks(layers);
  const unplaced = [...graph.keys()].map((f) => relative(root, f)).filter((f) => nodeOf(layers, f) === undefined);
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = nodeOf(layers, relative(root, file));
    for (const target of targets) {
      if (!target.startsWith(root)) continue; // web/src may use src/: it sits above all of it
      const to = nodeOf(layers, relative(root, target));
      if (from === undefined || to === undefined) continue;
      if (rank.get(to)! < rank.get(from)!) upward.push(`${relative(root, file)} (${from}) → ${relative(root, target)} (${to})`);
    }
  }
  return { unplaced, upward };
}

/** Strongly connected components with more than one node (Tarjan): each is a cycle. */
function cycles(nodes: Iterable<string>, next: (node: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

const folderOf = (file: string) => relative(SRC, file).split('/')[0]!;

describe('src/ import graph', () => {
  const graph = importGraph(SRC);

  it('points every import to the same floor of LAYERS or a lower one', () => {
    expect(rankViolations(SRC, LAYERS, graph)).toEqual({ unplaced: [], upward: [] });
  });

  it('lists in LAYERS only what exists, once', () => {
    const names = LAYERS.flatMap((floor) => Object.keys(floor));
    expect(names.filter((name) => !existsSync(join(SRC, name)))).toEqual([]);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('has no file cycle', () => {
    const named = cycles(graph.keys(), (f) => graph.get(f) ?? []).map((c) => c.map((f) => relative(SRC, f)));
    expect(named).toEqual([]);
  });

  it('has no folder cycle', () => {
    const arrows = new Map<string, Set<string>>();
    const witness = new Map<string, string>();
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const [from, to] = [folderOf(file), folderOf(target)];
        if (from === to) continue;
        if (!arrows.has(from)) arrows.set(from, new Set());
        arrows.get(from)!.add(to);
        witness.set(`${from}>${to}`, `${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
    const found = cycles(arrows.keys(), (f) => arrows.get(f) ?? []);
    const explained = found.map((c) => c.flatMap((a) => c.filter((b) => arrows.get(a)?.has(b)).map((b) => witness.get(`${a}>${b}`))));
    expect(explained).toEqual([]);
  });

  it('keeps every file under 400 lines', () => {
    const long = [...graph.keys()].map((f) => [relative(SRC, f), readFileSync(f, 'utf8').split('\n').length] as const).filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });
});

describe('web/src import graph', () => {
  const graph = importGraph(WEB);

  it('points every import to the same floor of WEB_LAYERS or a lower one', () => {
    expect(rankViolations(WEB, WEB_LAYERS, graph)).toEqual({ unplaced: [], upward: [] });
  });

  it('lists in WEB_LAYERS only what exists', () => {
    expect(WEB_LAYERS.flatMap((floor) => Object.keys(floor)).filter((name) => !existsSync(join(WEB, name)))).toEqual([]);
  });

  it('has no file cycle', () => {
    expect(cycles(graph.keys(), (f) => graph.get(f) ?? []).map((c) => c.map((f) => relative(WEB, f)))).toEqual([]);
  });
});
