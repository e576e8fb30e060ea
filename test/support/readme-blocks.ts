/**
 * The fenced code blocks of the README and of every page in docs/, for the suite that runs them
 * (test/integration/readme-examples.test.ts).
 *
 * Convention: every block in a runnable language (`sh`/`bash`, `ts`/`js`, `graphql`) is an example
 * the suite runs as written. A block that cannot run against a fresh `npm start` (it installs, starts
 * another server, needs settings other than the defaults...) says so on the line before its fence:
 *
 *     <!-- example: skip (why) -->
 *
 * A command that opens the database itself (the CLI's `ingest_file`, `migrate`) runs while no server
 * holds it, as the README tells the reader; its marker says so and the suite stops the server first:
 *
 *     <!-- example: server stopped (why) -->
 *
 * Blocks in other languages (`sql`, `yaml`, `json`, unlabelled) are documentation, never run.
 * A `Variables: `{…}`` line right after a `graphql` block gives its operations' variables, as in
 * GraphiQL's tabs.
 */
export interface ReadmeBlock {
  /** The page it is on, from the checkout's root: `README.md`, `docs/rem.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  kind: 'shell' | 'script' | 'graphql';
  code: string;
  /** Why the block is not run, from its `<!-- example: skip (why) -->` marker. */
  skip?: string;
  /** Why the block runs with the server stopped, from its `<!-- example: server stopped (why) -->` marker. */
  serverStopped?: string;
  /** The JSON of the `Variables:` line after the block. */
  variables?: string;
}

const KINDS: Record<string, ReadmeBlock['kind']> = { sh: 'shell', bash: 'shell', ts: 'script', js: 'script', graphql: 'graphql' };
const FENCE = /^(\s*)```(\S*)\s*$/;
const MARKER = /^\s*<!--\s*example:(.*?)-->\s*$/;

/** A page's runnable blocks in order; throws on a marker that is malformed or not right before a block. */
export function readmeBlocks(markdown: string, page: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let marker: { line: number; text: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const markerMatch = MARKER.exec(lines[i]!);
    if (markerMatch) {
      marker = { line: i + 1, text: markerMatch[1]!.trim() };
      continue;
    }
    const open = FENCE.exec(lines[i]!);
    if (!open) {
      if (marker && lines[i]!.trim()) throw new Error(`${page} line ${marker.line}: an example marker must come right before a code block`);
      continue;
    }
    const [, indent, lang] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !new RegExp(`^${indent}\`\`\`\\s*$`).test(lines[i]!); i++) body.push(lines[i]!.slice(indent!.length));
    const kind = KINDS[lang!];
    let skip: string | undefined;
    let serverStopped: string | undefined;
    if (marker) {
      const [, what, reason] = /^(skip|server stopped) \((.+)\)$/.exec(marker.text) ?? [];
      if (!reason)
        throw new Error(`${page} line ${marker.line}: expected <!-- example: skip (why) --> or <!-- example: server stopped (why) -->, found "${marker.text}"`);
      if (!kind) throw new Error(`${page} line ${marker.line}: ${lang || 'unlabelled'} blocks are never run, so they need no marker`);
      if (what === 'skip') skip = reason;
      else serverStopped = reason;
      marker = undefined;
    }
    if (!kind) continue;
    const next = lines.slice(i + 1).find((l) => l.trim());
    const variables = next && /^Variables: `(.+)`$/.exec(next.trim())?.[1];
    blocks.push({ page, line: start + 1, lang: lang!, kind, code: body.join('\n'), skip, serverStopped, variables: variables || undefined });
  }
  return blocks;
}
