export * from './verdict.js';
export * from './reports.js';
export { verifyStreamChain, type ChainOptions } from './chain.js';
export { currencyNamedBy, describeEvent } from './describe.js';
export { examineRound, type RoundExamination } from './round-examination.js';
export type {
  BetAdjustment,
  BetExamination,
  CardCorrection,
  DealtCard,
  PaidLine,
  WalletMovement,
} from './round-model.js';
export { walkShoe, type ShoeCard, type ShoeWalk } from './shoe-walk.js';
export { auditRound, ROUND_CHECKS, trailEntryOf, type RoundEvidence } from './round-audit.js';
/** The shoe digest as ShoeClosed seals it (defined in contracts, where the shoe records it). */
export { digestValueOf } from '@croupier/contracts';
export {
  replayShoe,
  SHOE_CHECKS,
  type PublishedValues,
  type ReplayOptions,
  type ShoeEvidence,
} from './shoe-replay.js';
export * from './export.js';
export * from './wallet-evidence.js';
export * from './wallet-balances.js';
export * from './wallet-audit.js';
export * from './significant-events.js';
export * from './cut-card-watch.js';
export * from './checkpoint.js';
export { checkOperatorStakes, isOperatorWalletEventOf } from './operator-wallet-check.js';
export * from './operator-wallet-audit.js';
export {
  CurrencyBook,
  currencyFixedBy,
  currencyScopeOf,
  type CurrencyScope,
} from './currency-book.js';
