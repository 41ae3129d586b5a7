import type { ErrorCode } from '@croupier/contracts';

/**
 * The domain error codes each wallet route can answer, for the OpenAPI document (the routes'
 * `config.problems`), read off WalletService and the wallet decider. Amounts are positive safe
 * integers by schema (400), so INVALID_AMOUNT never comes from these routes. Tokens, roles,
 * schema validation and transport problems are added by the document itself
 * (packages/http/src/openapi.ts).
 */
type Codes = readonly ErrorCode[];

/** Every command that appends through the one command handler, when the stream kept changing. */
const CONTENDED = 'CONCURRENCY_CONFLICT' satisfies ErrorCode;

export const WALLET_PROBLEMS = {
  /**
   * A first deposit opens the wallet; ID_CONFLICT: the reference records another amount;
   * BALANCE_LIMIT: past the currency's maximum balance (WALLET_MAX_BALANCE);
   * HELD_BY_OPERATOR_WALLET: seamless mode, where the operator's wallet holds the money.
   */
  deposit: [
    'CURRENCY_MISMATCH',
    'ID_CONFLICT',
    'BALANCE_LIMIT',
    'HELD_BY_OPERATOR_WALLET',
    CONTENDED,
  ],
  withdraw: [
    'WALLET_NOT_FOUND',
    'INSUFFICIENT_FUNDS',
    'ID_CONFLICT',
    'HELD_BY_OPERATOR_WALLET',
    CONTENDED,
  ],
  /** FORBIDDEN: a player reading another player's wallet. */
  getWallet: ['FORBIDDEN', 'WALLET_NOT_FOUND'],
  /** A wallet never opened has no movements: an empty list. */
  transactions: ['FORBIDDEN'],
  /** FORBIDDEN: a player topping up another player's fun wallet. */
  grantPlayMoney: ['FORBIDDEN', CONTENDED],
} as const satisfies Readonly<Record<string, Codes>>;

/**
 * The internal routes (the wallet port for a round service in another process) are left out of
 * the document; their codes are what the bet routes pass on.
 */
export const WALLET_PORT_PROBLEMS = {
  /**
   * ID_CONFLICT: a bet id another wallet's stake already holds, or this wallet's for another
   * round or amount, or a stake of it already closed. (One id twice in a request is refused by
   * the round before the wallet is asked.)
   */
  debitStakes: [
    'WALLET_NOT_FOUND',
    'CURRENCY_MISMATCH',
    'INSUFFICIENT_FUNDS',
    'ID_CONFLICT',
    CONTENDED,
  ],
  /**
   * A stake not open here (refunded or paid already, or never debited) is left as it is, and so
   * is one refunded before any bet that its round has not released (ADR 0034);
   * ID_CONFLICT: it is open for another round or amount.
   */
  refundStake: ['ID_CONFLICT', CONTENDED],
} as const satisfies Readonly<Record<string, Codes>>;
