import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server in the test process that keeps every message it is sent, parsed. */
export interface SmtpSink {
  url: string;
  messages: ParsedMail[];
  /** Resolves once `count` messages have arrived. */
  received(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/**
 * `hold`: keeps each message but never answers its DATA (the sender waits for the 250): a sender
 * killed then is one whose mail arrived while it cannot know.
 */
export async function startSmtpSink(options: { hold?: boolean } = {}): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const held: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          if (options.hold) held.push(() => callback());
          else callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async received(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} mails, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return messages;
    },
    close: () => {
      for (const answer of held.splice(0)) answer();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
