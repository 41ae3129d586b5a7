/**
 * Where a round stands, as its events put it: `none` before `RoundOpened`; `dealing` while cards
 * are due and `dealt` once the third-card rule wants none; `completed` or `voided` at the end.
 * The round's decider and the audit's replay both fold a round stream into it.
 */
export type RoundStatus =
  'none' | 'betting' | 'closed' | 'dealing' | 'dealt' | 'completed' | 'voided';
