import { useEffect, useState } from 'preact/hooks';
import type { AgentInfo } from './app.js';

interface Props {
  agents: AgentInfo[];
  models: string[];
  /** The session's own agent, preselected. */
  sessionAgent: string | null;
  busy: boolean;
  onSend(content: string, agent: string | null, model: string | null): Promise<void>;
  onCancel(): Promise<void>;
}

export function Composer({ agents, models, sessionAgent, busy, onSend, onCancel }: Props) {
  const [text, setText] = useState('');
  const [agent, setAgent] = useState<string>(sessionAgent ?? '');
  const [model, setModel] = useState('');
  const [sending, setSending] = useState(false);
  useEffect(() => setAgent(sessionAgent ?? ''), [sessionAgent]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const content = text.trim();
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
      <div class="input-row">
        <textarea
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
