import { fileURLToPath } from 'node:url';
import {
  betVerdict,
  decodeOutcome,
  isPlausibleOutcome,
  OUTCOME_CODES,
  settleBet,
  type BankerMode,
  type BetType,
  type BetVerdict,
  type RoundOutcome,
} from '@croupier/baccarat';
import { format, resolveConfig } from 'prettier';
import { PRESETS, type PresetName } from '../src/index.js';

/** Where the published paytables live. */
export const PAYTABLE_FILE = fileURLToPath(new URL('../../../docs/paytables.md', import.meta.url));

/** One way a bet can end: in words, and as the condition the words describe. */
export interface PaytableCase {
  readonly when: string;
  readonly holds: (outcome: RoundOutcome) => boolean;
}

const otherwise: PaytableCase = { when: 'otherwise', holds: () => true };

function bonusCases(side: 'player' | 'banker'): PaytableCase[] {
  const Side = side === 'player' ? 'Player' : 'Banker';
  const natural = (o: RoundOutcome) => (side === 'player' ? o.playerNatural : o.bankerNatural);
  const margin = (o: RoundOutcome) =>
    side === 'player' ? o.playerTotal - o.bankerTotal : o.bankerTotal - o.playerTotal;
  return [
    { when: `${Side} wins with a natural`, holds: (o) => o.winner === side && natural(o) },
    { when: `a tie, ${Side} holding a natural`, holds: (o) => o.winner === 'tie' && natural(o) },
    ...[9, 8, 7, 6, 5, 4].map((points) => ({
      when: `${Side} wins, not a natural, by ${points} points`,
      holds: (o: RoundOutcome) => o.winner === side && !natural(o) && margin(o) === points,
    })),
    otherwise,
  ];
}

function luckySixCases(): PaytableCase[] {
  const six = (o: RoundOutcome) => o.winner === 'banker' && o.bankerTotal === 6;
  return [
    { when: 'Banker wins with 6 on two cards', holds: (o) => six(o) && o.bankerCardCount === 2 },
    { when: 'Banker wins with 6 on three cards', holds: (o) => six(o) && o.bankerCardCount === 3 },
    otherwise,
  ];
}

/**
 * Every bet's cases, first match wins. A test checks, over every outcome the rules can produce,
 * that the outcomes each case holds for are paid alike by the code's paytable (`betVerdict`),
 * so these words cannot drift from what settlement pays.
 */
export function paytableCases(type: BetType, bankerMode: BankerMode): PaytableCase[] {
  switch (type) {
    case 'player':
      return [
        { when: 'Player wins', holds: (o) => o.winner === 'player' },
        { when: 'a tie', holds: (o) => o.winner === 'tie' },
        otherwise,
      ];
    case 'banker':
      return [
        ...(bankerMode === 'no_commission'
          ? [
              {
                when: 'Banker wins with 6',
                holds: (o: RoundOutcome) => o.winner === 'banker' && o.bankerTotal === 6,
              },
            ]
          : []),
        { when: 'Banker wins', holds: (o) => o.winner === 'banker' },
        { when: 'a tie', holds: (o) => o.winner === 'tie' },
        otherwise,
      ];
    case 'tie':
      return [{ when: 'a tie', holds: (o) => o.winner === 'tie' }, otherwise];
    case 'player_pair':
      return [
        { when: "Player's first two cards are a pair", holds: (o) => o.playerPair },
        otherwise,
      ];
    case 'banker_pair':
      return [
        { when: "Banker's first two cards are a pair", holds: (o) => o.bankerPair },
        otherwise,
      ];
    case 'either_pair':
      return [
        { when: 'either hand starts with a pair', holds: (o) => o.playerPair || o.bankerPair },
        otherwise,
      ];
    case 'perfect_pair':
      return [
        {
          when: 'either hand starts with a pair of the same suit',
          holds: (o) => o.playerPerfectPair || o.bankerPerfectPair,
        },
        otherwise,
      ];
    case 'player_natural':
      return [
        { when: 'Player has a natural (8 or 9 on two cards)', holds: (o) => o.playerNatural },
        otherwise,
      ];
    case 'banker_natural':
      return [
        { when: 'Banker has a natural (8 or 9 on two cards)', holds: (o) => o.bankerNatural },
        otherwise,
      ];
    case 'player_bonus':
      return bonusCases('player');
    case 'banker_bonus':
      return bonusCases('banker');
    case 'lucky_six':
    case 'lucky_six_2':
    case 'lucky_six_3':
      return luckySixCases();
  }
}

/** Every outcome the rules can produce (as the exact analyzer enumerates them). */
export function plausibleOutcomes(): RoundOutcome[] {
  const outcomes: RoundOutcome[] = [];
  for (let code = 0; code < OUTCOME_CODES; code++)
    if (isPlausibleOutcome(code)) outcomes.push(decodeOutcome(code));
  return outcomes;
}

/** A verdict as a comparable key: result, odds and commission rate. */
export function verdictKey(verdict: BetVerdict): string {
  if (verdict.result !== 'win') return verdict.result;
  const rate = verdict.commissionRate;
  return `win ${verdict.odds.num}/${verdict.odds.den}${rate === undefined ? '' : ` less ${rate.num}/${rate.den}`}`;
}

const STAKE = 1_000;

const money = (minor: number) => (minor / 100).toFixed(2);

function pays(verdict: BetVerdict): string {
  if (verdict.result === 'push') return 'stake back';
  if (verdict.result === 'lose') return 'nothing';
  const { num, den } = verdict.odds;
  const odds = den === 1 ? `${num} to 1` : `${num} to ${den}`;
  return verdict.commissionRate === undefined ? odds : `${odds}, 5% commission on the win`;
}

function presetSection(name: PresetName, outcomes: readonly RoundOutcome[]): string {
  const preset = PRESETS[name];
  const rules = { tieOdds: preset.tieOdds, commission: preset.commission };
  const rows: string[] = [];
  for (const type of Object.keys(preset.bets) as BetType[]) {
    const modes: readonly (BankerMode | null)[] = type === 'banker' ? preset.bankerModes : [null];
    for (const mode of modes) {
      const cases = paytableCases(type, mode ?? 'commission');
      for (const [i, c] of cases.entries()) {
        const example = outcomes.find(
          (o) => c.holds(o) && cases.findIndex((other) => other.holds(o)) === i,
        );
        if (example === undefined) continue; // a case no outcome reaches in this configuration
        const verdict = betVerdict(type, example, mode ?? 'commission', rules);
        const settled = settleBet(
          { type, stake: STAKE, bankerMode: mode ?? undefined },
          example,
          rules,
        );
        rows.push(
          `| \`${type}\` | ${mode === null ? '' : `\`${mode}\``} | ${c.when} | ${settled.result} | ${pays(verdict)} | ${money(settled.payout)} | ${settled.commission === 0 ? '' : money(settled.commission)} |`,
        );
      }
    }
  }
  const commission =
    preset.commission === 'deducted'
      ? 'Commission is **deducted**: withheld from the payout.'
      : 'Commission is **accrued**: the payout is the full win and the commission is owed by the seat, collected when the dealer shift ends (a `commission-collected` settlement message).';
  return [
    `## \`${name}\`: ${preset.name}`,
    '',
    `Tie pays ${preset.tieOdds} to 1. ${commission}`,
    '',
    '| bet | Banker mode | when | result | pays | payout of a 10.00 stake | commission |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** The page: every bet's payout per table preset, from the code's paytables. */
export async function paytablePageText(): Promise<string> {
  const outcomes = plausibleOutcomes();
  const text = [
    '# Paytables: what every bet pays, per table preset',
    '',
    '<!-- Generated from the code (packages/baccarat betVerdict and settleBet, packages/contracts PRESETS) by `pnpm --filter @croupier/contracts run paytables`; a test fails while it is stale. -->',
    '',
    'What a wallet system needs to check a `payout` settlement message against the round: the',
    "round's result and each bet's type and stake are in its audit (`GET /v1/audit/rounds/{roundId}`).",
    'Amounts are in minor units and every payout is **rounded down** to the minor unit: the payout',
    'is the stake plus `floor(stake × odds)`, and on a commission Banker win the stake plus',
    '`floor(stake × 0.95)` (the commission is the rest of the win, `floor(stake × 1) - floor(stake × 0.95)`).',
    'A push returns the stake; a loss returns nothing (a `payout` of 0 still closes the bet).',
    "A bet's cases are read top to bottom: the first that holds decides.",
    "The stake is a spot's: a player's chips on one bet type, Banker mode and seat in a round are",
    'one stake, paid as above on their total and rounded down once; each chip (bet) is paid its',
    "share of the spot's payout, the floor of its proportional share with the minor units left over",
    'one each to the earliest chips ([rules.md](rules.md), Spots; the spots are in `RoundSettled`).',
    '',
    ...(Object.keys(PRESETS) as PresetName[]).map((name) => presetSection(name, outcomes)),
  ].join('\n');
  const options = (await resolveConfig(PAYTABLE_FILE)) ?? {};
  return format(text, { ...options, parser: 'markdown' });
}
