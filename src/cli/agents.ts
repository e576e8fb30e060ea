import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliAgentDocument, CliAgentsDocument, CliRegisterAgentDocument, CliValidateAgentDocument, type CliErrorFragment } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { printRecord, printRows } from './output.js';

export const AGENTS_USAGE = `remgraph agents list                      agents you can use (tools marked * need approval)
remgraph agents show <name> [--version N] one agent: its settings and YAML
remgraph agents validate <file>           check a YAML agent without storing it (exit 1 when invalid)
remgraph agents register <file> [--shared]
                                          store a YAML agent as your new version (--shared: the
                                          tenant's, for admins)`;

export async function agentsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, version: { type: 'string' }, shared: { type: 'boolean' } },
  });
  const connection = connectionFrom(values);
  const [action, target, ...extra] = positionals;
  if (extra.length) throw new CliError(`agents ${action}: unexpected ${extra.join(' ')}`);
  switch (action) {
    case 'list': {
      const { agents } = await request(connection, CliAgentsDocument, { first: 100 });
      const rows = agents.edges.map(({ node: { tools, ...agent } }) => ({ ...agent, tools: tools.map((t) => (t.requiresApproval ? `${t.name}*` : t.name)) }));
      printRows(process.stdout, rows, ['name', 'version', 'origin', 'model', 'tools', 'description']);
      return 0;
    }
    case 'show': {
      if (!target) break;
      const { agent } = await request(connection, CliAgentDocument, {
        name: target,
        version: values.version ? positiveInt('version', values.version) : undefined,
      });
      if (!agent) throw new CliError(`no agent ${target}${values.version ? ` version ${values.version}` : ''}`);
      if (!process.stdout.isTTY) {
        process.stdout.write(`${JSON.stringify(agent)}\n`);
        return 0;
      }
      const { source, tools, ...fields } = agent;
      printRecord(process.stdout, { ...fields, tools: tools.map((t) => (t.requiresApproval ? `${t.name}*` : t.name)).join(', ') });
      process.stdout.write(`\n${source.trimEnd()}\n`);
      return 0;
    }
    case 'validate': {
      if (!target) break;
      const result = (await request(connection, CliValidateAgentDocument, { yaml: await readYaml(target) })).validateAgent;
      if (result.__typename !== 'AgentValidation') return reportInvalid(target, result);
      process.stdout.write(
        `${target}: valid agent ${result.name} (tools: ${result.tools.map((t) => (t.requiresApproval ? `${t.name}*` : t.name)).join(', ') || 'none'})\n`,
      );
      return 0;
    }
    case 'register': {
      if (!target) break;
      const result = (await request(connection, CliRegisterAgentDocument, { yaml: await readYaml(target), shared: values.shared })).registerAgent;
      if (result.__typename !== 'RegisterAgentPayload') return reportInvalid(target, result);
      const { name, version } = result.agent;
      process.stdout.write(result.created ? `registered ${name} version ${version}\n` : `${name} is unchanged (version ${version})\n`);
      return 0;
    }
  }
  throw new CliError(`agents: expected list, show <name>, validate <file> or register <file>\n\n${AGENTS_USAGE}`);
}

async function readYaml(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** A refused agent: each issue on stderr with its line and column in the file, exit 1. */
function reportInvalid(path: string, error: CliErrorFragment): number {
  process.stderr.write(`${path}: ${error.code}: ${error.message}\n`);
  if (error.__typename === 'ValidationError') {
    for (const issue of error.issues) {
      const where = issue.line ? `${path}:${issue.line}${issue.column ? `:${issue.column}` : ''}` : path;
      process.stderr.write(`  ${where} ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
    }
  }
  return 1;
}
