import type { Aggregate } from '@croupier/application';
import {
  roundEventSchema,
  tableEventSchema,
  type RoundEvent,
  type TableEvent,
} from '@croupier/contracts';
import { roundDecider, type RoundCommand, type RoundState } from '../domain/round.decider.js';
import { tableDecider, type TableCommand, type TableState } from '../domain/table.decider.js';

export const roundAggregate: Aggregate<RoundCommand, RoundEvent, RoundState> = {
  decider: roundDecider,
  parse: (recorded) => roundEventSchema.parse({ type: recorded.type, data: recorded.data }),
};

export const tableAggregate: Aggregate<TableCommand, TableEvent, TableState> = {
  decider: tableDecider,
  parse: (recorded) => tableEventSchema.parse({ type: recorded.type, data: recorded.data }),
};
