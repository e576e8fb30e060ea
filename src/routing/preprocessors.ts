import { crispPrompt, parseCrisp } from './crisp.js';

/**
 * Input preprocessors (the routing seed's): they turn a message's content and metadata into the
 * fields routing rules look at, and into the text the chosen agent reads. A rule names the one
 * its conditions are checked against.
 */

/** What routing conditions look at. Addresses are lower case; header names too. */
export interface MessageFields {
  sender: string | null;
  subject: string | null;
  headers: Record<string, string>;
  forwardedFrom: string | null;
  /** The message text (an email's body). */
  body: string;
}

export interface Preprocessed {
  fields: MessageFields;
  /** What the agent receives as the user's message. */
  content: string;
  /** Fields only this preprocessor reads (Crisp's patient_name, patient_email, original_message). */
  extracted?: Record<string, string>;
}

export type PreprocessorName = 'passthrough' | 'email' | 'crisp';

export const PREPROCESSORS: Record<PreprocessorName, (content: string, metadata: Record<string, unknown>) => Preprocessed> = {
  /** The content unchanged; fields from `metadata` (sender, subject, headers, forwarded_from). */
  passthrough: (content, metadata) => ({ fields: fieldsFromMetadata(content, metadata), content }),
  /**
   * `content` is a raw RFC 822 message: sender, subject, headers and forwarded_from come from its
   * header block (metadata fills what it lacks); the agent reads a short header summary and the
   * body. Content without a header block is passed through.
   */
  email: (content, metadata) => {
    const parsed = parseRfc822(content);
    if (!parsed) return PREPROCESSORS.passthrough(content, metadata);
    const given = fieldsFromMetadata(parsed.body, metadata);
    const headers = { ...given.headers, ...parsed.headers };
    const fields: MessageFields = {
      sender: addressIn(headers.from) ?? given.sender,
      subject: headers.subject ?? given.subject,
      headers,
      forwardedFrom: addressIn(headers['x-forwarded-from']) ?? addressIn(headers['resent-from']) ?? given.forwardedFrom,
      body: parsed.body,
    };
    const summary = [`From: ${headers.from ?? fields.sender ?? 'unknown'}`, ...(fields.subject ? [`Subject: ${fields.subject}`] : [])];
    return { fields, content: `${summary.join('\n')}\n\n${parsed.body}` };
  },
  /**
   * An email (as `email` reads it) forwarded by the Crisp helpdesk: the agent reads the seed's
   * "New support inquiry from {name} ({email})" prompt with the customer's own message. Mail not
   * in Crisp's format is read as `email` reads it.
   */
  crisp: (content, metadata) => {
    const mail = PREPROCESSORS.email(content, metadata);
    const inquiry = parseCrisp(mail.fields.body);
    if (!inquiry) return mail;
    return {
      fields: mail.fields,
      content: crispPrompt(inquiry, mail.fields.subject),
      extracted: { patient_name: inquiry.patientName, patient_email: inquiry.patientEmail, original_message: inquiry.originalMessage },
    };
  },
};

function fieldsFromMetadata(body: string, metadata: Record<string, unknown>): MessageFields {
  const text = (key: string) => (typeof metadata[key] === 'string' ? (metadata[key] as string) : null);
  const headers: Record<string, string> = {};
  const given = metadata.headers;
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const [name, value] of Object.entries(given)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return { sender: addressIn(text('sender')), subject: text('subject'), headers, forwardedFrom: addressIn(text('forwarded_from')), body };
}

const ADDRESS = /[^\s<>"',;:()]+@[^\s<>"',;:()]+\.[^\s<>"',;:()]+/;

/** The email address in `Name <a@b.c>` or `a@b.c`, lower case. */
export function addressIn(value: string | null | undefined): string | null {
  return value ? (ADDRESS.exec(value)?.[0].toLowerCase() ?? null) : null;
}

/** Every address in a text (for "forwarded from" signals in a body). */
export function addressesIn(text: string): string[] {
  return [...text.matchAll(new RegExp(ADDRESS, 'g'))].map((m) => m[0].toLowerCase());
}

const HEADER_LINE = /^([!-9;-~]+):[ \t]?(.*)$/;

/** Header block (folded lines joined, names lower case; the first of a repeated header wins) and body. */
function parseRfc822(raw: string): { headers: Record<string, string>; body: string } | null {
  const lines = raw.replace(/\r\n/g, '\n').split('\n');
  const headers: Record<string, string> = {};
  let last: string | null = null;
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') break;
    if (/^[ \t]/.test(line) && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const header = HEADER_LINE.exec(line);
    if (!header) return null;
    last = header[1]!.toLowerCase();
    if (!(last in headers)) headers[last] = header[2]!.trim();
    else last = null;
  }
  if (!headers.from && !headers.subject) return null;
  return {
    headers,
    body: lines
      .slice(i + 1)
      .join('\n')
      .trim(),
  };
}
