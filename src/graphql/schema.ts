import { builder } from './builder.js';
import './scalars.js';
import './types/errors.js';
import './types/viewer.js';
import './types/node.js';
import './types/messages.js';
import './types/sessions.js';
import './types/turns.js';
import './types/forks.js';
import './types/agents.js';
import './types/approvals.js';
import './types/rem.js';
import './types/extract.js';
import './types/ingest.js';
import './types/routing.js';
import './types/provenance.js';
import './types/jobs.js';
import './types/import.js';
import './types/evals.js';
import './types/usage.js';

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

export const schema = builder.toSchema({ sortSchema: true });
