import { LimitExceededError } from '../errors.js';
import type { UsageTotals } from '../events/agent-event.js';
import type { DocumentBinding } from '../documents/binding.js';
import { bindTurn, type TurnBinding } from '../tools/documents/bound-tools.js';
import type { DelegationRequest, DelegationResult } from '../tools/tool.js';
import { ToolPause } from '../tools/tool-pause.js';
import { contextFor } from './history.js';
import { addHistory, freshState } from './run-state.js';
import type { EngineDeps } from './engine-deps.js';
import type { HeldTree } from './held-tree.js';
import { executeRun, type TurnRun } from './turn-run.js';

/**
 * Runs a child agent inside a parent's tool call (ask_agent): a child turn in the same session,
 * one level deeper, whose events the hub forwards into every ancestor's stream as they happen.
 * The child inherits the parent's gated tools. A child that pauses for a decision pauses the
 * parent too (ToolPause); it resumes first, then the parent.
 */
export async function delegate(
  deps: EngineDeps,
  tree: HeldTree,
  parent: TurnRun,
  request: DelegationRequest,
): Promise<DelegationResult & { usage: UsageTotals }> {
  const { settings } = deps;
  const depth = parent.turn.depth + 1;
  if (depth > settings.maxDepth) {
    throw new LimitExceededError(
      `Delegation depth limit reached: ${parent.turn.agentPath.join(' → ')} may not ask another agent (MAX_AGENT_DEPTH ${settings.maxDepth})`,
    );
  }
  if (tree.childTurns >= settings.maxChildTurns) {
    throw new LimitExceededError(`This turn already asked ${tree.childTurns} agents, the most one turn may (MAX_CHILD_TURNS ${settings.maxChildTurns})`);
  }
  tree.childTurns += 1;
  const agent = await deps.agents.load(parent.state.context, request.agentName);
  const model = agent.spec.model ? deps.models.resolve(agent.spec.model) : parent.model;
  const child = await deps.store.startChildTurn({ session: parent.session, agent, model, parent: parent.turn });
  deps.hub.open(child, 0);
  tree.turnIds.add(child.id);
  const content = request.inputData === undefined ? request.inputText : `${request.inputText}\n\nInput data (JSON):\n${JSON.stringify(request.inputData)}`;
  // A child bound to a document (ask_document) gets its tools and is told what it is about.
  const overrides = {
    ...(request.binding ? { binding: await bindChild(deps, parent, request.binding) } : {}),
    ...(parent.state.overrides?.debug ? { debug: true } : {}),
  };
  const state = freshState(agent, parent.ctx, [], content, gatedFor(deps, parent), Object.keys(overrides).length ? overrides : undefined);
  addHistory(state, await contextFor(deps, { ctx: parent.ctx, session: parent.session, agent, model, state, withMemory: false }));
  const run: TurnRun = { turn: child, session: parent.session, agent, model, ctx: parent.ctx, state, signal: parent.signal };
  const result = await executeRun(deps, run, (p, r) => delegate(deps, tree, p, r));
  if (result.status === 'AWAITING_APPROVAL') throw new ToolPause(child.id);
  return { childTurnId: child.id, agent: agent.name, status: result.status, content: result.content, usage: result.usage };
}

async function bindChild(deps: EngineDeps, parent: TurnRun, binding: DocumentBinding): Promise<TurnBinding> {
  const bound = await bindTurn(deps.prisma, deps.documentTools, parent.state.context, binding);
  if (bound.dropped.length) deps.logger.info({ turnId: parent.turn.id, dropped: bound.dropped }, 'corpus tools left out: the child turn has no corpus');
  return bound.binding;
}

/** Tools gated for `run`: inherited ones and those its agent (or the registry) gates. */
function gatedFor(deps: EngineDeps, run: TurnRun): string[] {
  const own = run.agent.spec.tools.filter((ref) => deps.tools.requiresApproval(ref, ref.name)).map((ref) => ref.name);
  return [...new Set([...(run.state.inheritedGates ?? []), ...own])];
}
