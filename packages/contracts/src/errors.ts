/**
 * Stable error codes of the public API. A domain error names what was wrong and changes
 * nothing; the HTTP layer answers with its status and a problem+json body carrying the code.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  TABLE_NOT_FOUND: 404,
  SHOE_NOT_FOUND: 404,
  ROUND_NOT_FOUND: 404,
  WALLET_NOT_FOUND: 404,
  CHECKPOINT_NOT_FOUND: 404,
  PARKED_MESSAGE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  /** The same bet (same bet id, same player and stake) submitted again: the first one stands. */
  DUPLICATE_BET: 409,
  /** An id (bet id, reference) already names a different record: use a new one. */
  ID_CONFLICT: 409,
  CONCURRENCY_CONFLICT: 409,
  TABLE_CLOSED: 409,
  ROUND_IN_PROGRESS: 409,
  ROUND_NOT_OPEN: 409,
  BETTING_CLOSED: 409,
  ROUND_PAUSED: 409,
  ROUND_NOT_PAUSED: 409,
  ROUND_FINISHED: 409,
  DEAL_IN_PROGRESS: 409,
  ROUND_NOT_DEALING: 409,
  SHOE_CLOSED: 409,
  SHOE_FINISHED: 409,
  SHOE_NOT_FINISHED: 409,
  WRONG_CARD_SOURCE: 409,
  SEAT_TAKEN: 409,
  NOT_SEATED: 409,
  /** A rebet while the player has bets on the round: it repeats the previous round's bets alone. */
  BETS_ALREADY_PLACED: 409,
  /** Seamless mode: the operator's wallet holds players' money, not Croupier's wallet. */
  HELD_BY_OPERATOR_WALLET: 409,
  NOT_PARKED: 409,
  INSUFFICIENT_FUNDS: 422,
  BALANCE_LIMIT: 422,
  CURRENCY_MISMATCH: 422,
  /** Seamless mode: the operator's wallet refused the stake with a code of its own. */
  OPERATOR_WALLET_REFUSED: 422,
  UNKNOWN_BET: 422,
  BET_NOT_OFFERED: 422,
  BET_PAST_MAX_ROUND: 422,
  INVALID_AMOUNT: 422,
  BET_BELOW_MIN: 422,
  BET_ABOVE_MAX: 422,
  BET_DIFFERENCE_LIMIT: 422,
  INVALID_SEAT: 422,
  BANKER_MODE_NOT_OFFERED: 422,
  NO_BETS_TO_CLEAR: 422,
  NO_BETS_TO_DEAL: 422,
  NO_PREVIOUS_BETS: 422,
  IMPOSSIBLE_CARD: 422,
  INVALID_DEAL: 422,
  INVALID_CORRECTION: 422,
  INVALID_TABLE_CONFIG: 422,
  SEED_MISMATCH: 422,
  /** Transport refusals: the request never reached a command. */
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}

/** A refused command: a stable code, a message naming what was wrong, optional details. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}
