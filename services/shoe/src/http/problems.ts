import type { ErrorCode } from '@croupier/contracts';

/**
 * The domain error codes each shoe route can answer, for the OpenAPI document (the routes'
 * `config.problems`), read off ShoeService and the shoe decider. Schema validation, tokens,
 * roles and transport problems are added by the document itself (packages/http/src/openapi.ts).
 */
type Codes = readonly ErrorCode[];

/** Every command that appends through the one command handler, when the stream kept changing. */
const CONTENDED = 'CONCURRENCY_CONFLICT' satisfies ErrorCode;

/**
 * Only a shoe waiting for its burn card takes one (one burnt already, or an rng shoe, is not:
 * INVALID_DEAL); the card shown is the shoe's first, so the shoe can always hold it.
 */
const BURN: Codes = ['SHOE_NOT_FOUND', 'INVALID_DEAL', CONTENDED];

export const SHOE_PROBLEMS = {
  getShoe: ['SHOE_NOT_FOUND'],
  burn: BURN,
} as const satisfies Readonly<Record<string, Codes>>;

/**
 * The internal routes (the shoe port for a round service in another process) are left out of
 * the document; their codes are what the round service's routes pass on. The caller chooses
 * every input, so each refusal of the decider is reachable.
 */
export const SHOE_PORT_PROBLEMS = {
  /** A shoe started already is answered as it is. */
  startShoe: [],
  getShoe: ['SHOE_NOT_FOUND'],
  drawRound: [
    'SHOE_NOT_FOUND',
    'WRONG_CARD_SOURCE',
    'SHOE_CLOSED',
    'INVALID_DEAL',
    'SHOE_FINISHED',
    'SEED_MISMATCH',
    'ROUND_FINISHED',
    'ROUND_NOT_FOUND',
    'ROUND_NOT_DEALING',
    CONTENDED,
  ],
  /** Sealing a sealed round, or one of a closed shoe, answers its cards as they are. */
  sealRound: ['SHOE_NOT_FOUND', CONTENDED],
  roundCards: [],
  drawScannedCard: [
    'SHOE_NOT_FOUND',
    'SHOE_CLOSED',
    'INVALID_DEAL',
    'WRONG_CARD_SOURCE',
    'SHOE_FINISHED',
    'IMPOSSIBLE_CARD',
    'ROUND_FINISHED',
    'ROUND_NOT_FOUND',
    'ROUND_NOT_DEALING',
    CONTENDED,
  ],
  correctCard: [
    'SHOE_NOT_FOUND',
    'WRONG_CARD_SOURCE',
    'INVALID_CORRECTION',
    'IMPOSSIBLE_CARD',
    CONTENDED,
  ],
  reportCutCard: [
    'SHOE_NOT_FOUND',
    'SHOE_CLOSED',
    'INVALID_DEAL',
    'WRONG_CARD_SOURCE',
    'SHOE_FINISHED',
    CONTENDED,
  ],
  burn: BURN,
  closeShoe: ['SHOE_NOT_FOUND', 'SHOE_NOT_FINISHED', 'SEED_MISMATCH', CONTENDED],
} as const satisfies Readonly<Record<string, Codes>>;
