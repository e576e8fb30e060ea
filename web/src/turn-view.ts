import { isTerminal } from '../../src/events/turn-status.js';
import type { StepFieldsFragment, TurnStatus, WebEventFragment, WebSourceFragment } from './generated/graphql.js';

export type Source = WebSourceFragment;

interface Decision {
  approved: boolean;
  reason: string | null;
  decidedBy: string | null;
}

/** One visible piece of an agent's work, in the order it happened. */
export type Step =
  | { kind: 'text'; text: string }
  | { kind: 'thought'; text: string }
  | { kind: 'tool'; toolCallId: string; name: string; arguments: unknown; result?: unknown; isError?: boolean }
  | { kind: 'action'; actionType: string; payload: unknown }
  | { kind: 'approval'; approvalId: string; toolCallId: string; name: string; arguments: unknown; agentPath: string[]; decision?: Decision }
  | { kind: 'child'; run: AgentRun }
  | { kind: 'error'; code: string; message: string };

/** An agent's run: the top-level turn, or a child turn it delegated to (nested in its parent's steps). */
export interface AgentRun {
  turnId: string;
  agent: string;
  /** Agent names from the top-level agent down to this one. */
  path: string[];
  status: TurnStatus;
  steps: Step[];
  sources: Source[];
  usage?: { inputTokens: number; outputTokens: number; requests: number; estimated?: boolean };
}

/**
 * The state of one top-level turn, built from its event log. Replayed and live events go through
 * the same `apply`, so a reloaded page shows exactly what a page that watched the turn showed.
 * Events at or below `lastSeq` are ignored: resubscribing after a dropped connection may overlap.
 */
export class TurnView {
  readonly run: AgentRun;
  lastSeq = 0;
  private readonly children = new Map<string, AgentRun>();

  constructor(turnId: string, agent: string, status: TurnStatus) {
    this.run = { turnId, agent, path: [agent], status, steps: [], sources: [] };
  }

  get finished(): boolean {
    return isTerminal(this.run.status);
  }

  /** Approval requests of this turn and its children that nobody has decided yet. */
  pendingApprovals(): Extract<Step, { kind: 'approval' }>[] {
    const out: Extract<Step, { kind: 'approval' }>[] = [];
    const visit = (run: AgentRun) => {
      for (const step of run.steps) {
        if (step.kind === 'approval' && !step.decision) out.push(step);
        if (step.kind === 'child') visit(step.run);
      }
    };
    visit(this.run);
    return out;
  }

  /** Applies one event of the turn's log; false when it was seen already. */
  apply(event: WebEventFragment): boolean {
    if (event.seq <= this.lastSeq) return false;
    this.lastSeq = event.seq;
    if (event.__typename === 'ChildEvent') {
      const child = this.childRun(event.childTurnId, event.childAgent, event.path);
      applyStep(child, event.event);
      return true;
    }
    applyStep(this.run, event);
    return true;
  }

  /** The run of a child turn, created (and placed in its parent's steps) on its first event. */
  private childRun(turnId: string, agent: string, path: string[]): AgentRun {
    const known = this.children.get(turnId);
    if (known) return known;
    const run: AgentRun = { turnId, agent, path, status: 'RUNNING', steps: [], sources: [] };
    this.children.set(turnId, run);
    this.parentOf(path).steps.push({ kind: 'child', run });
    return run;
  }

  /** The latest run whose path is this one's without its last agent (children of children arrive flattened). */
  private parentOf(path: string[]): AgentRun {
    const parentPath = path.slice(0, -1).join('/');
    const runs = [...this.children.values()].reverse();
    return runs.find((r) => r.path.join('/') === parentPath && !isTerminal(r.status)) ?? this.run;
  }
}

function applyStep(run: AgentRun, event: StepFieldsFragment): void {
  switch (event.__typename) {
    case 'ContentEvent': {
      const last = run.steps.at(-1);
      if (last?.kind === 'text') last.text += event.delta;
      else run.steps.push({ kind: 'text', text: event.delta });
      break;
    }
    case 'ThoughtEvent': {
      const last = run.steps.at(-1);
      if (last?.kind === 'thought') last.text += event.text;
      else run.steps.push({ kind: 'thought', text: event.text });
      break;
    }
    case 'ToolCallEvent':
      run.steps.push({ kind: 'tool', toolCallId: event.toolCallId, name: event.name, arguments: event.arguments });
      break;
    case 'ToolResultEvent': {
      const call = run.steps.find((s): s is Extract<Step, { kind: 'tool' }> => s.kind === 'tool' && s.toolCallId === event.toolCallId);
      if (call) Object.assign(call, { result: event.result, isError: event.isError });
      else run.steps.push({ kind: 'tool', toolCallId: event.toolCallId, name: event.name, arguments: null, result: event.result, isError: event.isError });
      break;
    }
    case 'ActionEvent':
      run.steps.push({ kind: 'action', actionType: event.actionType, payload: event.payload });
      break;
    case 'SourcesEvent':
      addSources(run, event.sources);
      break;
    case 'ApprovalNeededEvent':
      run.status = 'AWAITING_APPROVAL';
      run.steps.push({
        kind: 'approval',
        approvalId: event.approvalId,
        toolCallId: event.toolCallId,
        name: event.name,
        arguments: event.arguments,
        agentPath: event.agentPath,
      });
      break;
    case 'ApprovalResultEvent': {
      const request = run.steps.find((s): s is Extract<Step, { kind: 'approval' }> => s.kind === 'approval' && s.approvalId === event.approvalId);
      if (request) request.decision = { approved: event.approved, reason: event.reason, decidedBy: event.decidedBy };
      break;
    }
    case 'ResumeEvent':
      run.status = 'RUNNING';
      break;
    case 'ErrorEvent':
      run.steps.push({ kind: 'error', code: event.code, message: event.message });
      break;
    case 'FinalEvent': {
      run.status = event.status;
      run.usage = event.usage;
      addSources(run, event.sources);
      // The final answer is authoritative: it replaces the streamed text of the last model call
      // (identical unless events were lost), and is shown when nothing was streamed, as when a
      // parent repeats its child's answer verbatim.
      const streamed = lastAnswer(run);
      if (event.content?.trim()) {
        if (streamed) streamed.text = event.content;
        else run.steps.push({ kind: 'text', text: event.content });
      }
      break;
    }
    case 'ChildEvent':
      break;
  }
}

/** The text streamed by the run's last model call: the last text step, unless work followed it. */
function lastAnswer(run: AgentRun): Extract<Step, { kind: 'text' }> | undefined {
  for (let i = run.steps.length - 1; i >= 0; i--) {
    const step = run.steps[i]!;
    if (step.kind === 'text') return step;
    if (step.kind !== 'error' && step.kind !== 'thought') return undefined;
  }
  return undefined;
}

function addSources(run: AgentRun, sources: Source[]): void {
  for (const source of sources) if (!run.sources.some((s) => s.key === source.key)) run.sources.push(source);
}
