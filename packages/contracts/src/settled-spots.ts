import { settleBet, settleChips, type BetSettlement, type RoundOutcome } from '@croupier/baccarat';
import type { PlacedBet, RoundRules, SettledSpot } from './events/round.js';

/**
 * What the rules pay each placed bet (chip) under `outcome`, by bet id, and the spots: chips on
 * one spot (player, bet type, banker mode, seat) are one stake, paid once on their total and
 * shared back over the chips (docs/rules.md "Spots"). A round settled before spots (its
 * `RoundSettled` lists none: `bySpot` false) is paid chip by chip, as it was. The settlement
 * service pays by it and the audit checks by it.
 */
export function settlePlacedBets(
  bets: readonly PlacedBet[],
  outcome: RoundOutcome,
  rules: RoundRules,
  bySpot: boolean,
): { chips: Map<string, BetSettlement>; spots: SettledSpot[] } {
  if (!bySpot) {
    const chips = new Map(
      bets.map((bet) => [
        bet.betId,
        settleBet(
          { type: bet.type, stake: bet.amount, bankerMode: bet.bankerMode ?? undefined },
          outcome,
          rules,
        ),
      ]),
    );
    return { chips, spots: [] };
  }
  const settled = settleChips(
    bets.map((bet) => ({
      betId: bet.betId,
      playerId: bet.playerId,
      spot: { type: bet.type, bankerMode: bet.bankerMode, seat: bet.seat },
      amount: bet.amount,
    })),
    outcome,
    rules,
  );
  return {
    chips: new Map(settled.chips.map(({ chip, settlement }) => [chip.betId, settlement])),
    spots: settled.spots.map(({ playerId, spot, stake, chips, settlement }) => ({
      playerId,
      type: spot.type,
      bankerMode: spot.bankerMode,
      seat: spot.seat,
      stake,
      result: settlement.result,
      payout: settlement.payout,
      commission: settlement.commission,
      betIds: chips.map((chip) => chip.betId),
    })),
  };
}
