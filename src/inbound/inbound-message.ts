import { createHash } from 'node:crypto';
import type * as MailParser from 'mailparser';
import type { AddressObject, ParsedMail } from 'mailparser';
import { ValidationError } from '../errors.js';

/** An inbound email however it was delivered: a raw RFC 822 message or an inbound-parse webhook's fields. */
export interface InboundMessage {
  /** The Message-ID with its angle brackets (one made from the message's hash when it has none). */
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  fromAddress: string;
  fromName: string | null;
  toAddress: string | null;
  subject: string | null;
  /** The plain-text body (the HTML one's text when there is no plain part). */
  text: string;
  /** Header names lower case; the first of a repeated header. */
  headers: Record<string, string>;
  raw: string | null;
  source: 'rfc822' | 'sendgrid' | 'mailgun' | 'postmark';
}

let mailParser: Promise<typeof MailParser> | undefined;

/**
 * mailparser, loaded when an email first needs it: with the character sets it brings it is most of
 * the server's code by size, whose compiling was a fifth of a start-up for servers that never
 * receive email. The inbound route starts loading it at start-up when inbound email is on, so
 * that the first email does not stall the event loop loading it.
 */
export function loadMailParser(): Promise<typeof MailParser> {
  return (mailParser ??= import('mailparser'));
}

const notMime = (why: string) => new ValidationError(`Not an email: ${why}`, [{ path: ['body'], message: why }]);

const HEADER_LINE = /^[!-9;-~]+:/;

/**
 * Reads a request body as an email: `message/rfc822` is the message itself; `application/json` is
 * Postmark's inbound webhook; `multipart/form-data` or `application/x-www-form-urlencoded` is
 * SendGrid Inbound Parse (`email` when it posts the raw message, else `from`, `subject`, `text`,
 * `headers`) or Mailgun's routes (`body-mime` from a `…/mime` URL, else `sender`, `subject`,
 * `body-plain`, `message-headers`). Anything else is a ValidationError.
 */
export async function readInbound(contentType: string, body: Buffer): Promise<InboundMessage> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'message/rfc822') return parseRaw(body.toString('utf8'), 'rfc822');
  if (type === 'application/json') return fromPostmark(parseJson(body));
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    } catch {
      throw notMime('the form body cannot be read');
    }
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : null;
    };
    const rawSendgrid = field('email');
    if (rawSendgrid) return parseRaw(rawSendgrid, 'sendgrid');
    const rawMailgun = field('body-mime');
    if (rawMailgun) return parseRaw(rawMailgun, 'mailgun');
    if (field('body-plain') !== null) return fromMailgun(field);
    if (field('headers') !== null || field('text') !== null) return fromSendgrid(field);
    throw notMime('the form has none of the fields of SendGrid Inbound Parse (email, or headers and text) or Mailgun (body-mime, or body-plain)');
  }
  throw notMime(`content type "${type}" is not message/rfc822, application/json (Postmark), multipart/form-data or urlencoded (SendGrid, Mailgun)`);
}

/** An RFC 822 message (from a file or a webhook's raw field). */
async function parseRaw(raw: string, source: InboundMessage['source']): Promise<InboundMessage> {
  if (!HEADER_LINE.test(raw)) throw notMime('it does not start with a header block');
  let mail: ParsedMail;
  try {
    const { simpleParser } = await loadMailParser();
    mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
  } catch {
    throw notMime('it cannot be parsed as MIME');
  }
  const from = firstAddress(mail.from);
  if (!from?.address) throw notMime('it has no From address');
  const headers: Record<string, string> = {};
  for (const line of mail.headerLines) {
    if (!(line.key in headers)) headers[line.key] = line.line.slice(line.line.indexOf(':') + 1).trim();
  }
  return {
    messageId: mail.messageId ?? madeId(raw),
    inReplyTo: mail.inReplyTo ?? null,
    references: list(mail.references),
    fromAddress: from.address.toLowerCase(),
    fromName: from.name || null,
    toAddress: firstAddress(mail.to)?.address?.toLowerCase() ?? null,
    subject: mail.subject ?? null,
    text: (mail.text ?? (typeof mail.html === 'string' ? mail.html.replace(/<[^>]+>/g, ' ') : '')).trim(),
    headers,
    raw,
    source,
  };
}

function firstAddress(value: AddressObject | AddressObject[] | undefined) {
  return (Array.isArray(value) ? value[0] : value)?.value[0];
}

function list(value: string | string[] | undefined): string[] {
  if (!value) return [];
  return (Array.isArray(value) ? value : value.split(/\s+/)).map((v) => v.trim()).filter(Boolean);
}

const madeId = (content: string) => `<${createHash('sha256').update(content).digest('hex').slice(0, 32)}@inbound.remgraph>`;

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Said below.
  }
  throw notMime('the JSON body is not an object');
}

/** A webhook's parsed fields as a message: `headers` fills what the fields leave out. */
function fromFields(
  fields: { from: string | null; to: string | null; subject: string | null; text: string | null; messageId?: string | null },
  headers: Record<string, string>,
  source: InboundMessage['source'],
): InboundMessage {
  const fromText = fields.from ?? headers.from ?? '';
  const address = /[^\s<>"]+@[^\s<>"]+/.exec(fromText)?.[0];
  if (!address) throw notMime('it has no From address');
  const name = fromText
    .replace(/<[^>]*>/, '')
    .replace(/"/g, '')
    .trim();
  const text = fields.text ?? '';
  const messageId = fields.messageId ?? headers['message-id'] ?? madeId(`${fromText}\n${fields.subject ?? ''}\n${text}`);
  return {
    messageId: messageId.startsWith('<') ? messageId : `<${messageId}>`,
    inReplyTo: headers['in-reply-to'] ?? null,
    references: list(headers.references),
    fromAddress: address.toLowerCase(),
    fromName: name && name !== address ? name : null,
    toAddress: /[^\s<>"]+@[^\s<>"]+/.exec(fields.to ?? headers.to ?? '')?.[0]?.toLowerCase() ?? null,
    subject: fields.subject ?? headers.subject ?? null,
    text: text.trim(),
    headers,
    raw: null,
    source,
  };
}

const lowerKeys = (pairs: [string, string][]) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) if (!(name.toLowerCase() in headers)) headers[name.toLowerCase()] = value;
  return headers;
};

function fromSendgrid(field: (name: string) => string | null): InboundMessage {
  const block = (field('headers') ?? '').replace(/\r?\n[ \t]+/g, ' ');
  const pairs = block
    .split(/\r?\n/)
    .map((line) => /^([!-9;-~]+):\s*(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m): [string, string] => [m[1]!, m[2]!]);
  return fromFields({ from: field('from'), to: field('to'), subject: field('subject'), text: field('text') }, lowerKeys(pairs), 'sendgrid');
}

function fromMailgun(field: (name: string) => string | null): InboundMessage {
  let pairs: [string, string][] = [];
  try {
    const parsed: unknown = JSON.parse(field('message-headers') ?? '[]');
    if (Array.isArray(parsed)) pairs = parsed.filter((p): p is [string, string] => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string');
  } catch {
    throw notMime('message-headers is not JSON');
  }
  const headers = lowerKeys(pairs);
  return fromFields(
    { from: field('from') ?? field('sender'), to: field('recipient'), subject: field('subject'), text: field('body-plain'), messageId: field('Message-Id') },
    headers,
    'mailgun',
  );
}

function fromPostmark(body: Record<string, unknown>): InboundMessage {
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : null);
  const list = Array.isArray(body.Headers) ? (body.Headers as unknown[]) : [];
  const pairs = list
    .filter((h): h is { Name: string; Value: string } => typeof h === 'object' && h !== null && typeof (h as { Name?: unknown }).Name === 'string')
    .map((h): [string, string] => [h.Name, String(h.Value)]);
  if (text('From') === null) throw notMime('the JSON is not a Postmark inbound message (no From)');
  const fromName = text('FromName');
  const from = fromName ? `${fromName} <${text('From')}>` : text('From');
  return fromFields(
    { from, to: text('To'), subject: text('Subject'), text: text('TextBody') ?? text('HtmlBody')?.replace(/<[^>]+>/g, ' ') ?? '' },
    lowerKeys(pairs),
    'postmark',
  );
}
