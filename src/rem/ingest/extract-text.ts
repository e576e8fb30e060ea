import { Parser } from 'htmlparser2';
import { extractText } from 'unpdf';
import { ValidationError } from '../../errors.js';
import type { Section } from './chunk-text.js';

export type FileFormat = 'text' | 'markdown' | 'html' | 'pdf';

const BY_EXTENSION: Record<string, FileFormat> = { txt: 'text', text: 'text', md: 'markdown', markdown: 'markdown', html: 'html', htm: 'html', pdf: 'pdf' };
const BY_TYPE: Record<string, FileFormat> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/pdf': 'pdf',
};

/** The format of a file, from its name's extension or else its content type; VALIDATION_FAILED for anything else. */
export function fileFormat(filename: string, contentType?: string | null): FileFormat {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  const format = (extension && BY_EXTENSION[extension]) || BY_TYPE[(contentType ?? '').split(';')[0]!.trim().toLowerCase()];
  if (!format) throw invalid(`${filename}: unsupported file type; send text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf)`);
  return format;
}

/** The text of a file as sections under their headings. */
export async function extractSections(format: FileFormat, bytes: Uint8Array): Promise<Section[]> {
  if (format === 'pdf') return pdfSections(bytes);
  const text = utf8(bytes);
  if (format === 'markdown') return markdownSections(text);
  if (format === 'html') return htmlSections(text);
  return [{ headings: [], text }];
}

function utf8(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('file: not valid UTF-8 text');
  }
  if (text.includes('\u0000')) throw invalid('file: binary content (NUL bytes) in a text file');
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/** ATX headings (`#` … `######`) open sections; fenced code blocks are text, whatever they hold. */
function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  const outline: string[] = [];
  let lines: string[] = [];
  let fenced = false;
  const close = () => {
    if (lines.join('').trim()) sections.push({ headings: [...outline], text: lines.join('\n').trim() });
    lines = [];
  };
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) {
      lines.push(line);
      continue;
    }
    close();
    outline.length = heading[1]!.length - 1;
    outline[heading[1]!.length - 1] = heading[2]!;
    for (let i = 0; i < outline.length; i++) outline[i] ??= '';
  }
  close();
  return sections.map((s) => ({ ...s, headings: s.headings.filter(Boolean) }));
}

const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'li',
  'ul',
  'ol',
  'table',
  'tr',
  'br',
  'pre',
  'blockquote',
  'dd',
  'dt',
  'hr',
  'figure',
]);
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'nav']);

/** Visible text of an HTML page; `h1`…`h6` open sections, block elements separate paragraphs. */
function htmlSections(html: string): Section[] {
  const sections: Section[] = [];
  const outline: string[] = [];
  let text = '';
  let heading: { level: number; text: string } | null = null;
  let skipping = 0;
  const close = () => {
    const body = text
      .replace(/[ \t]+/g, ' ')
      .replace(/ ?\n ?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (body) sections.push({ headings: outline.filter(Boolean), text: body });
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED.has(name)) skipping++;
        else if (/^h[1-6]$/.test(name)) {
          close();
          heading = { level: Number(name[1]), text: '' };
        } else if (BLOCKS.has(name)) text += '\n\n';
      },
      ontext(data) {
        if (skipping) return;
        if (heading) heading.text += data;
        else text += data.replace(/\s+/g, ' ');
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (heading && name === `h${heading.level}`) {
          outline.length = heading.level - 1;
          outline[heading.level - 1] = heading.text.replace(/\s+/g, ' ').trim();
          heading = null;
        } else if (BLOCKS.has(name)) text += '\n\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  close();
  return sections;
}

async function pdfSections(bytes: Uint8Array): Promise<Section[]> {
  if (!new TextDecoder().decode(bytes.subarray(0, 5)).startsWith('%PDF-')) throw invalid('file: not a PDF (no %PDF- header)');
  let pages: string[];
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    ({ text: pages } = await extractText(new Uint8Array(bytes), { mergePages: false }));
  } catch {
    throw invalid('file: the PDF could not be read');
  }
  return pages.map((page, i) => ({ headings: [`Page ${i + 1}`], text: page.replace(/[ \t]+\n/g, '\n').trim(), page: i + 1 })).filter((s) => s.text);
}

function invalid(message: string): ValidationError {
  return new ValidationError(message, [{ path: ['file'], message }]);
}
