import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { WebDiscardEmailDraftDocument, WebSendEmailDraftDocument, WebUpdateEmailDraftDocument, type WebInboundEmailQuery } from '../generated/graphql.js';

type Draft = NonNullable<WebInboundEmailQuery['inboundEmail']>['drafts'][number];

interface Props {
  draft: Draft;
  /** After a change: the email is read again. */
  onChanged(): void;
  onProblem(message: string): void;
}

/** A reply draft for a person to review: a pending one can be edited, sent (over SMTP, threaded) or discarded. */
export function DraftItem({ draft, onChanged, onProblem }: Props) {
  const [editing, setEditing] = useState<{ subject: string; body: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (run: () => Promise<{ __typename: string; message?: string }>) => {
    setBusy(true);
    try {
      const result = await run();
      if ('message' in result && result.message) return onProblem(result.message);
      setEditing(null);
      onChanged();
    } catch (error) {
      onProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const save = () => act(async () => (await request(WebUpdateEmailDraftDocument, { id: draft.id, ...editing! })).updateEmailDraft);
  const send = () => act(async () => (await request(WebSendEmailDraftDocument, { id: draft.id })).sendEmailDraft);
  const discard = () => act(async () => (await request(WebDiscardEmailDraftDocument, { id: draft.id })).discardEmailDraft);

  return (
    <li data-testid="email-draft" data-status={draft.status}>
      <strong>{draft.subject}</strong>{' '}
      <span class="meta">
        to {draft.to} · {draft.author} · {draft.status}
      </span>
      {editing ? (
        <div class="draft-edit">
          <input value={editing.subject} onInput={(e) => setEditing({ ...editing, subject: e.currentTarget.value })} data-testid="draft-subject" />
          <textarea rows={8} value={editing.body} onInput={(e) => setEditing({ ...editing, body: e.currentTarget.value })} data-testid="draft-body" />
          <button disabled={busy} onClick={() => void save()} data-testid="draft-save">
            Save
          </button>{' '}
          <button class="link" disabled={busy} onClick={() => setEditing(null)}>
            Cancel
          </button>
        </div>
      ) : (
        <pre>{draft.body}</pre>
      )}
      {draft.status === 'PENDING' && !editing && (
        <div class="draft-actions">
          <button disabled={busy} onClick={() => setEditing({ subject: draft.subject, body: draft.body })} data-testid="draft-edit">
            Edit
          </button>{' '}
          <button disabled={busy} onClick={() => void send()} data-testid="draft-send">
            Send
          </button>{' '}
          <button class="link" disabled={busy} onClick={() => void discard()} data-testid="draft-discard">
            Discard
          </button>
        </div>
      )}
    </li>
  );
}
