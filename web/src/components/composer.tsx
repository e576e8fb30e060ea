import { useEffect, useRef, useState } from 'preact/hooks';
import type { AgentInfo } from '../agent-info.js';

interface Props {
  agents: AgentInfo[];
  models: string[];
  /** The session's own agent, preselected. */
  sessionAgent: string | null;
  busy: boolean;
  /** Text to put in the box (a message being edited to send again). */
  draft: { text: string } | null;
  onFiles(files: File[]): void;
  onSend(content: string, agent: string | null, model: string | null): Promise<void>;
  onCancel(): Promise<void>;
}

export function Composer({ agents, models, sessionAgent, busy, draft, onFiles, onSend, onCancel }: Props) {
  const [text, setText] = useState('');
  const [agent, setAgent] = useState<string>(sessionAgent ?? '');
  const [model, setModel] = useState('');
  const [sending, setSending] = useState(false);
  const [hint, setHint] = useState<string | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => setAgent(sessionAgent ?? ''), [sessionAgent]);
  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    input.current?.focus();
  }, [draft]);
  useEffect(() => setHint(null), [busy]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const content = text.trim();
    if (busy && content) return setHint('A turn is still running: wait for it, or cancel it, then send.');
    if (!content || busy || sending) return;
    setSending(true);
    try {
      await onSend(content, agent || null, model.trim() || null);
      setText('');
    } finally {
      setSending(false);
    }
  };

  return (
    <form class="composer" onSubmit={submit}>
      <div class="pickers">
        <label>
          Agent
          <select value={agent} onChange={(e) => setAgent(e.currentTarget.value)} data-testid="agent-picker">
            <option value="">{sessionAgent ? `session agent (${sessionAgent})` : 'default agent'}</option>
            {agents.map((a) => (
              <option key={a.name} value={a.name} title={a.description}>
                {a.name}
                {a.tools.some((t) => t.requiresApproval) ? ' (asks approval)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          Model
          <input list="models" value={model} placeholder="default model" onInput={(e) => setModel(e.currentTarget.value)} data-testid="model-picker" />
          <datalist id="models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
      </div>
      {hint && (
        <div class="hint" role="status" data-testid="composer-hint">
          {hint}
        </div>
      )}
      <div class="input-row">
        <label class="attach" title="Add files to memory (or drop them on the chat)">
          <input
            type="file"
            multiple
            onChange={(e) => {
              onFiles([...(e.currentTarget.files ?? [])]);
              e.currentTarget.value = '';
            }}
            data-testid="file-input"
          />
          +
        </label>
        <textarea
          ref={input}
          value={text}
          placeholder="Message (Enter to send, Shift+Enter for a new line)"
          rows={2}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) void submit(e);
          }}
          data-testid="message-input"
        />
        {busy ? (
          <button type="button" class="cancel" onClick={() => void onCancel()}>
            Cancel
          </button>
        ) : (
          <button type="submit" disabled={sending || !text.trim()}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
