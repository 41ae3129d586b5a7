export * from './verdict.js';
export * from './reports.js';
export { verifyStreamChain, type ChainOptions } from './chain.js';
export { describeEvent } from './describe.js';
export {
  examineRound,
  paytableIdOf,
  type BetExamination,
  type CardCorrection,
  type DealtCard,
  type RoundExamination,
  type RoundStatus,
  type WalletMovement,
} from './round-examination.js';
export type { BetAdjustment, PaidLine } from './resettlement-check.js';
export { walkShoe, type ShoeCard, type ShoeWalk } from './shoe-walk.js';
export { auditRound, ROUND_CHECKS, trailEntryOf, type RoundEvidence } from './round-audit.js';
export { digestValueOf } from './digest-check.js';
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
export * from './significant-events.js';
