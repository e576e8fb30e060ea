import { TurnStatus } from '../../db/generated/enums.js';
import { builder } from '../builder.js';

export const TurnStatusEnum = builder.enumType(TurnStatus, { name: 'TurnStatus' });
