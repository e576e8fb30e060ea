import { parseArgs } from 'node:util';
import { CliError, connectionFrom, connectionOptions, request } from './client.js';
import { CliApprovalsDocument, CliDecideApprovalDocument, type ApprovalStatus } from './generated/graphql.js';
import { positiveInt } from './flags.js';
import { printRows } from './output.js';

export const APPROVALS_USAGE = `remgraph approvals list [--status PENDING|APPROVED|REJECTED|EXPIRED] [--session S] [--first N]
                                          approvals you can see, newest first
remgraph approvals decide <id> --approve|--reject [--reason R]
                                          decide a gated call; its turn then continues`;

const STATUSES: readonly ApprovalStatus[] = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'];

export async function approvalsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      status: { type: 'string' },
      session: { type: 'string' },
      first: { type: 'string' },
      approve: { type: 'boolean', default: false },
      reject: { type: 'boolean', default: false },
      reason: { type: 'string' },
    },
  });
  const connection = connectionFrom(values);
  const [action, id] = positionals;
  if (action === 'list' && !id) {
    const status = values.status?.toUpperCase() as ApprovalStatus | undefined;
    if (status && !STATUSES.includes(status)) throw new CliError(`--status: expected one of ${STATUSES.join(', ')}`);
    const { approvals } = await request(connection, CliApprovalsDocument, {
      status,
      sessionId: values.session,
      first: values.first ? positiveInt('first', values.first) : 20,
    });
    const rows = approvals.edges.map(({ node: { session, ...approval } }) => ({ ...approval, sessionId: session.id }));
    printRows(process.stdout, rows, ['id', 'status', 'toolName', 'arguments', 'agentPath', 'createdAt']);
    return 0;
  }
  if (action === 'decide' && id) {
    if (values.approve === values.reject) throw new CliError('approvals decide: give --approve or --reject');
    const decided = (await request(connection, CliDecideApprovalDocument, { id, approve: values.approve, reason: values.reason })).decideApproval;
    if (decided.__typename !== 'DecideApprovalSuccess') throw new CliError(`${decided.code}: ${decided.message}`);
    const { approval } = decided;
    process.stdout.write(`${approval.status} ${approval.toolName} (${approval.id})${approval.reason ? `: ${approval.reason}` : ''}\n`);
    return 0;
  }
  throw new CliError(`approvals: expected list or decide <id>\n\n${APPROVALS_USAGE}`);
}
