/** A run of text under a path of headings (the document's outline above it). */
export interface Section {
  headings: string[];
  text: string;
  /** PDF: the page the text is on (1-based). */
  page?: number;
}

/** A chunk never spans two sections, so it is on its section's page. */
export interface Chunk extends Section {
  /** Characters at its start repeated from the previous chunk, with the space after them (absent: none). */
  overlap?: number;
}

export interface ChunkOptions {
  /** Longest chunk, in characters. */
  maxChars: number;
  /** Characters of the previous chunk of the same section repeated at the start of the next. */
  overlapChars: number;
}

/**
 * Splits sections into chunks for embedding: a chunk never spans two sections, paragraphs are
 * packed whole while they fit, a paragraph longer than a chunk is cut at sentence or word
 * boundaries, and consecutive chunks of a section share `overlapChars` (whole words) so that a
 * sentence cut in two is found from either side.
 */
export function chunkSections(sections: Section[], options: ChunkOptions): Chunk[] {
  const chunks: Chunk[] = [];
  const room = Math.max(1, options.maxChars - options.overlapChars);
  for (const section of sections) {
    const pieces = section.text
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter(Boolean)
      .flatMap((p) => (p.length <= room ? [p] : cut(p, room)));
    let current = '';
    let previous = '';
    const flush = () => {
      if (!current) return;
      const lead = previous ? tail(previous, options.overlapChars) : '';
      const text = lead ? `${lead} ${current}` : current;
      const chunk: Chunk = section.page === undefined ? { headings: section.headings, text } : { headings: section.headings, text, page: section.page };
      if (lead) chunk.overlap = lead.length + 1;
      chunks.push(chunk);
      previous = current;
      current = '';
    };
    for (const piece of pieces) {
      if (current && current.length + 2 + piece.length > room) flush();
      current = current ? `${current}\n\n${piece}` : piece;
    }
    flush();
  }
  return chunks;
}

/** Cuts a long paragraph into pieces of at most `size`, preferring sentence ends, then spaces. */
function cut(text: string, size: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(0, size + 1);
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '));
    const space = window.lastIndexOf(' ');
    const at = sentence > size / 2 ? sentence + 1 : space > size / 2 ? space : size;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The last `size` characters of a text, starting at a word. */
function tail(text: string, size: number): string {
  if (size <= 0) return '';
  if (text.length <= size) return text;
  const slice = text.slice(-size);
  const space = slice.indexOf(' ');
  return (space === -1 ? slice : slice.slice(space + 1)).trim();
}
