import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { WebResolveEmailEscalationDocument } from '../generated/graphql.js';

interface Props {
  emailId: string;
  reason: string | null;
  /** After resolving: the email and the list are read again. */
  onResolved(): void;
  onProblem(message: string): void;
}

/**
 * An escalated email's call for a person, above everything else on it: why it was escalated, and
 * marking it handled (with a note for its trail) once they answered it (a draft below) or checked it.
 */
export function EscalationBox({ emailId, reason, onResolved, onProblem }: Props) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);

  const resolve = async () => {
    setBusy(true);
    try {
      const { resolveEmailEscalation: result } = await request(WebResolveEmailEscalationDocument, { id: emailId, note: note.trim() || null });
      if ('message' in result && result.message) return onProblem(result.message);
      onResolved();
    } catch (error) {
      onProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="email-escalation" role="alert" data-testid="email-escalation">
      <strong>Escalated to you</strong>
      <p data-testid="escalation-reason">{reason ?? 'No reason was given.'}</p>
      <textarea
        rows={2}
        placeholder="What you did (kept in the email’s events)"
        value={note}
        onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
        data-testid="escalation-note"
      />
      <button onClick={resolve} disabled={busy} data-testid="escalation-resolve">
        Mark handled
      </button>
    </div>
  );
}
