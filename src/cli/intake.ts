import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { signBody } from '../inbound/signature.js';
import { CliError, connectionFrom, connectionOptions } from './client.js';

export const INTAKE_USAGE = `Usage: remgraph intake <file.eml> [--secret S]
  Delivers an RFC 822 message to the server's POST /inbound/email, signed with
  --secret (default INBOUND_EMAIL_SECRET), as a mail provider's webhook would; prints the
  email's id, its route and whether the server had it already.`;

/** `remgraph intake <file.eml>`: one email into the shared inbox, through the same door as webhooks. */
export async function intakeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...connectionOptions, secret: { type: 'string' } } });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new CliError(`give one .eml file\n\n${INTAKE_USAGE}`);
  const secret = values.secret ?? process.env.INBOUND_EMAIL_SECRET;
  if (!secret) throw new CliError('no secret: pass --secret or set INBOUND_EMAIL_SECRET (the server’s)');
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    throw new CliError(`cannot read ${file}`);
  }
  const url = new URL('/inbound/email', connectionFrom(values).url);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'message/rfc822', 'x-signature-256': signBody(secret, body) },
      body: new Uint8Array(body),
    });
  } catch {
    throw new CliError(`no server answered at ${url.origin} (start one with \`npm start\`, or set --url / REMGRAPH_URL)`);
  }
  const answer = (await res.json().catch(() => ({}))) as { id?: string; route?: string; duplicate?: boolean; error?: { code: string; message: string } };
  if (res.status !== 202) throw new CliError(answer.error ? `${answer.error.code}: ${answer.error.message}` : `the server answered ${res.status}`);
  process.stdout.write(`${answer.id} ${answer.route}${answer.duplicate ? ' (already received)' : ''}\n`);
  return 0;
}
