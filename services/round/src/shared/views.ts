import { evaluateRound } from '@croupier/baccarat';
import type { ShoeSummary } from '@croupier/contracts';
import type { Principal } from '@croupier/http';
import { z } from 'zod';
import type { RoundState } from '../domain/round.decider.js';

const cardAt = z.object({ card: z.string(), shoePosition: z.number().int() });

export const roundViewSchema = z.object({
  roundId: z.string(),
  tableId: z.string(),
  shoeId: z.string(),
  number: z.number().int(),
  status: z.enum(['betting', 'closed', 'dealing', 'dealt', 'completed', 'voided']),
  paused: z.boolean(),
  cardSource: z.enum(['rng', 'scanner']),
  currency: z.string(),
  paytableId: z.string().nullable(),
  bets: z.array(
    z.object({
      betId: z.string(),
      playerId: z.string(),
      type: z.string(),
      amount: z.number().int(),
      bankerMode: z.string().nullable(),
      seat: z.number().int().nullable(),
      status: z.enum(['active', 'cleared']),
    }),
  ),
  cards: z.object({ player: z.array(cardAt), banker: z.array(cardAt) }),
  result: z
    .object({
      winner: z.enum(['player', 'banker', 'tie']),
      playerTotal: z.number().int(),
      bankerTotal: z.number().int(),
      playerPair: z.boolean(),
      bankerPair: z.boolean(),
    })
    .nullable(),
  adjustments: z.array(
    z.object({
      betId: z.string(),
      playerId: z.string(),
      previousPayout: z.number().int(),
      payout: z.number().int(),
      delta: z.number().int(),
      result: z.string(),
    }),
  ),
  settlement: z
    .object({
      settlementId: z.string(),
      lines: z.array(
        z.object({
          betId: z.string(),
          playerId: z.string(),
          type: z.string(),
          stake: z.number().int(),
          result: z.string(),
          payout: z.number().int(),
          commission: z.number().int(),
        }),
      ),
      spots: z
        .array(
          z.object({
            playerId: z.string(),
            type: z.string(),
            bankerMode: z.string().nullable(),
            seat: z.number().int().nullable(),
            stake: z.number().int().describe("the chips' total, minor units"),
            result: z.string(),
            payout: z.number().int(),
            commission: z.number().int(),
            betIds: z.array(z.string()),
          }),
        )
        .describe(
          "each player's chips on one bet type, banker mode and seat, paid once on their total; the lines are their shares (none for a round settled before spots)",
        ),
    })
    .nullable(),
});
export type RoundView = z.infer<typeof roundViewSchema>;

/** A rebet's answer: the round, the round it repeated, and the bets it left out. */
export const rebetViewSchema = roundViewSchema.extend({
  rebetOf: z.string().describe('the earlier round whose bets were repeated'),
  dropped: z
    .array(
      z.object({
        betId: z.string().describe('the bet in the earlier round'),
        type: z.string(),
        amount: z.number().int().describe('what it would have staked now, minor units'),
        code: z.string().describe('why: BET_PAST_MAX_ROUND, BET_NOT_OFFERED'),
        reason: z.string(),
      }),
    )
    .describe('bets of the earlier round this round no longer offers: not placed'),
});

/** A round as the API shows it; a player sees only their own bets and settlement lines. */
export function roundView(state: RoundState, viewer: Principal): RoundView {
  const mine = (playerId: string) => viewer.role !== 'player' || playerId === viewer.id;
  const complete = state.status === 'completed';
  const result = complete
    ? evaluateRound(
        state.player.map((c) => c.card),
        state.banker.map((c) => c.card),
      )
    : null;
  return {
    roundId: state.roundId,
    tableId: state.tableId,
    shoeId: state.shoeId,
    number: state.number,
    status: state.status === 'none' ? 'betting' : state.status,
    paused: state.paused,
    cardSource: state.cardSource,
    currency: state.currency,
    paytableId: state.paytableId,
    bets: [...state.bets.values()]
      .filter((bet) => mine(bet.playerId))
      .map(({ betId, playerId, type, amount, bankerMode, seat, status }) => ({
        betId,
        playerId,
        type,
        amount,
        bankerMode,
        seat,
        status,
      })),
    cards: {
      player: state.player.map(({ card, shoePosition }) => ({ card, shoePosition })),
      banker: state.banker.map(({ card, shoePosition }) => ({ card, shoePosition })),
    },
    result:
      result === null
        ? null
        : {
            winner: result.winner,
            playerTotal: result.playerTotal,
            bankerTotal: result.bankerTotal,
            playerPair: result.playerPair,
            bankerPair: result.bankerPair,
          },
    adjustments: state.adjustments
      .filter((adjustment) => mine(adjustment.playerId))
      .map(({ betId, playerId, previousPayout, payout, delta, result }) => ({
        betId,
        playerId,
        previousPayout,
        payout,
        delta,
        result,
      })),
    settlement:
      state.settlementId === null
        ? null
        : {
            settlementId: state.settlementId,
            // The view's fields only: responses are sent as they are where they are not
            // validated (ADR 0022), so nothing beyond the schema may be in them.
            lines: state.settledLines
              .filter((line) => mine(line.playerId))
              .map(({ betId, playerId, type, stake, result, payout, commission }) => ({
                betId,
                playerId,
                type,
                stake,
                result,
                payout,
                commission,
              })),
            spots: state.settledSpots
              .filter((spot) => mine(spot.playerId))
              .map(
                ({
                  playerId,
                  type,
                  bankerMode,
                  seat,
                  stake,
                  result,
                  payout,
                  commission,
                  betIds,
                }) => ({
                  playerId,
                  type,
                  bankerMode,
                  seat,
                  stake,
                  result,
                  payout,
                  commission,
                  betIds: [...betIds],
                }),
              ),
          },
  };
}

/** A shoe as the API shows it (GET /v1/shoes/:shoeId): never what is left in it. */
export const shoeViewSchema = z.object({
  shoeId: z.string(),
  tableId: z.string(),
  number: z.number().int(),
  status: z.enum(['awaiting-burn', 'dealing', 'closed']),
  decks: z.number().int(),
  cardSource: z.enum(['rng', 'scanner']),
  shufflePolicy: z.enum(['shoe', 'every-round']),
  position: z.number().int().describe('the position of the next card'),
  cardsLeft: z.number().int(),
  roundsDrawn: z.number().int(),
  lastRoundNumber: z
    .number()
    .int()
    .nullable()
    .describe("set once the cut card is out: the shoe's last round"),
  cutCard: z
    .object({
      position: z
        .number()
        .int()
        .describe('the shoe position the cut card sits before: where placed, or where it came out'),
      cardsFromEnd: z.number().int(),
      reached: z.boolean(),
      reachedInRound: z.number().int().nullable(),
    })
    .nullable()
    .describe('null for a shoe shuffled for one round'),
  commitment: z.string().nullable(),
});

// The view shows every field of the summary the shoe service answers, and nothing else.
const _shoeView: (shoe: ShoeSummary) => z.infer<typeof shoeViewSchema> = (shoe) => shoe;
