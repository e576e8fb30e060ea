/**
 * Mail forwarded by the Crisp helpdesk: who wrote (name and address) and what they wrote, without
 * Crisp's header and footer. Crisp words its notifications in the workspace's language; Czech and
 * English are recognised:
 *
 *   New message from Jana Nováková (jana@example.cz)      Nová zpráva od Jana Nováková (jana@example.cz)
 *   Name: Jana Nováková / Email: jana@example.cz          Jméno: … / E-mail: …
 *   Message: / Zpráva:                                    (optional: where the message starts)
 *   …the message…
 *   -- / Reply to this email… / Odpovězte… / Sent via Crisp / Odesláno přes Crisp / app.crisp.chat links (the footer)
 */
export interface CrispInquiry {
  patientName: string;
  patientEmail: string;
  originalMessage: string;
}

const FROM_LINE =
  /^\s*(?:new message from|new conversation from|message from|nová zpráva od|nová konverzace od|zpráva od)\s+(.+?)\s*[(<]\s*([^\s()<>@]+@[^\s()<>]+)\s*[)>]\s*:?\s*$/i;
const NAME_LINE = /^\s*(?:name|jméno|jmeno)\s*:\s*(.+?)\s*$/i;
const EMAIL_LINE = /^\s*(?:e-?mail)\s*:\s*<?([^\s<>@]+@[^\s<>]+?)>?\s*$/i;
const MESSAGE_LINE = /^\s*(?:message|zpráva|zprava)\s*:\s*(.*)$/i;
const FOOTER_LINE =
  /^\s*(?:--\s*$|_{3,}|reply to this email|you can reply|odpovězte na tento e-?mail|odpovědět můžete|sent via crisp|sent with crisp|odesláno (?:přes|pomocí) crisp|powered by crisp|https?:\/\/app\.crisp\.chat)/i;

/** The inquiry in a Crisp-forwarded body, or null when the body is not in Crisp's format. */
export function parseCrisp(body: string): CrispInquiry | null {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  let name: string | null = null;
  let email: string | null = null;
  let start = -1;
  for (let i = 0; i < lines.length && start < 0; i++) {
    const line = lines[i]!;
    const from = FROM_LINE.exec(line);
    const named = NAME_LINE.exec(line);
    const mailed = EMAIL_LINE.exec(line);
    const message = MESSAGE_LINE.exec(line);
    if (from) [name, email] = [from[1]!, from[2]!];
    else if (named) name = named[1]!;
    else if (mailed) email = mailed[1]!;
    else if (message) {
      start = i;
      if (message[1]!.trim()) lines[i] = message[1]!;
      else start = i + 1;
    } else if (name && email && line.trim()) start = i;
  }
  if (!name || !email || start < 0) return null;
  const end = lines.findIndex((line, i) => i >= start && FOOTER_LINE.test(line));
  const originalMessage = lines
    .slice(start, end < 0 ? undefined : end)
    .join('\n')
    .trim();
  return originalMessage ? { patientName: name.replace(/^["']|["']$/g, ''), patientEmail: email.toLowerCase(), originalMessage } : null;
}

/** The seed's prompt for the agent. */
export function crispPrompt(inquiry: CrispInquiry, subject: string | null): string {
  return `New support inquiry from ${inquiry.patientName} (${inquiry.patientEmail}):\nSubject: ${subject ?? '(none)'}\n\n${inquiry.originalMessage}`;
}
