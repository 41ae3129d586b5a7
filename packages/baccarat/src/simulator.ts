import { randomBytes } from 'node:crypto';
import type { BankerMode, BetType } from './bets.js';
import { orderedShoe, POINT_OF_CODE } from './cards.js';
import { bankerDraws, playerDraws } from './dealing.js';
import { ANALYZED_BETS, type AnalyzedBet } from './analyzer.js';
import { decodeOutcome, isPlausibleOutcome, OUTCOME_CODES } from './outcome-code.js';
import { AesCtrStream } from './random.js';
import { settleBet, type SettlementRules } from './settlement.js';
import { ShoeDealer } from './shoe.js';
import { fisherYates, shufflePrefix } from './shuffle.js';
import type { TableRules } from './table.js';

/** What the simulator needs of a table: its shoe and its paytable options. */
export type SimulatedTable = Pick<
  TableRules,
  'decks' | 'shufflePolicy' | 'burn' | 'cutCard' | 'tieOdds' | 'commission'
>;

export interface SimulationOptions {
  readonly hands: number;
  readonly table: SimulatedTable;
  /** Seed of the AES-CTR card stream; a random one is chosen (and reported) when absent. */
  readonly seed?: string | undefined;
  /** Called about every `progressEvery` hands with the number dealt so far. */
  readonly onProgress?: ((handsDealt: number) => void) | undefined;
  readonly progressEvery?: number | undefined;
}

export interface Frequency {
  readonly count: number;
  readonly rate: number;
}

export interface SimulatedBet {
  readonly staked: number;
  readonly returned: number;
  /** Observed return per unit staked. */
  readonly rtp: number;
  /** 95% confidence interval of the RTP (normal approximation). */
  readonly ci95: readonly [number, number];
}

export interface SimulationResult {
  readonly seed: string;
  readonly hands: number;
  readonly shoes: number;
  readonly elapsedMs: number;
  readonly handsPerSecond: number;
  readonly frequencies: Readonly<Record<string, Frequency>>;
  readonly bets: Readonly<Record<AnalyzedBet, SimulatedBet>>;
}

/** Stake per bet per hand, minor units: every paytable pays it in whole units, unrounded. */
export const SIMULATION_STAKE = 100;

/** Banker-draws lookup: index `bankerTotal * 11 + playerThird + 1` (playerThird -1: stood). */
const BANKER_DRAWS = Uint8Array.from({ length: 110 }, (_, i) => {
  const third = (i % 11) - 1;
  return bankerDraws(Math.floor(i / 11), third < 0 ? null : third) ? 1 : 0;
});
const PLAYER_DRAWS = Uint8Array.from({ length: 10 }, (_, total) => (playerDraws(total) ? 1 : 0));

/**
 * Payout tables: the payout of a SIMULATION_STAKE bet for every outcome code, computed by
 * `settleBet` itself, so simulation settles every hand with the production paytable. Laid out
 * code-major (`code * bets + bet`) so one hand's payouts share a cache line.
 */
function payoutTables(table: SimulatedTable): { bets: AnalyzedBet[]; payouts: Int32Array } {
  const rules: SettlementRules = { tieOdds: table.tieOdds, commission: 'deducted' };
  const bets = [...ANALYZED_BETS];
  const payouts = new Int32Array(bets.length * OUTCOME_CODES);
  bets.forEach((bet, index) => {
    const type: BetType = bet === 'banker_no_commission' ? 'banker' : bet;
    const bankerMode: BankerMode = bet === 'banker_no_commission' ? 'no_commission' : 'commission';
    for (let code = 0; code < OUTCOME_CODES; code++) {
      if (!isPlausibleOutcome(code)) continue;
      const settled = settleBet(
        { type, stake: SIMULATION_STAKE, bankerMode },
        decodeOutcome(code),
        rules,
      );
      payouts[code * bets.length + index] = settled.payout;
    }
  });
  return { bets, payouts };
}

/**
 * Monte Carlo simulation with real shoes: shuffle, burn, deal to the cut card, one more round,
 * reshuffle (or a fresh shuffle every round), every bet settled every hand.
 */
export function simulate(options: SimulationOptions): SimulationResult {
  const { table } = options;
  if (!Number.isSafeInteger(options.hands) || options.hands < 1) {
    throw new RangeError(`hands must be a positive integer, got ${options.hands}`);
  }
  const seed = options.seed ?? randomBytes(16).toString('hex');
  const random = new AesCtrStream(seed);
  const cards = Uint8Array.from(orderedShoe(table.decks));
  const dealer = new ShoeDealer(cards, { burn: table.burn, cutCard: table.cutCard });
  const everyRound = table.shufflePolicy === 'every-round';
  const { bets, payouts } = payoutTables(table);
  const betCount = bets.length;
  const returned = new Float64Array(betCount);
  const histogram = new Float64Array(OUTCOME_CODES);
  const progressEvery = options.progressEvery ?? 1_000_000;
  let nextProgress = progressEvery;
  let shoes = 0;
  let hands = 0;
  let shoeOpen = false;
  const started = performance.now();

  while (hands < options.hands) {
    if (everyRound) {
      shufflePrefix(cards, 6, random);
      dealer.reset();
      shoes++;
    } else if (!shoeOpen) {
      fisherYates(cards, random);
      dealer.reset();
      dealer.burn();
      shoes++;
      shoeOpen = true;
    }
    dealer.startRound();
    const p1 = dealer.draw();
    const b1 = dealer.draw();
    const p2 = dealer.draw();
    const b2 = dealer.draw();
    let player = (POINT_OF_CODE[p1]! + POINT_OF_CODE[p2]!) % 10;
    let banker = (POINT_OF_CODE[b1]! + POINT_OF_CODE[b2]!) % 10;
    let thirds = 0;
    if (player < 8 && banker < 8) {
      let playerThird = -1;
      if (PLAYER_DRAWS[player] === 1) {
        playerThird = POINT_OF_CODE[dealer.draw()]!;
        player = (player + playerThird) % 10;
        thirds |= 1 << 8;
      }
      if (BANKER_DRAWS[banker * 11 + playerThird + 1] === 1) {
        banker = (banker + POINT_OF_CODE[dealer.draw()]!) % 10;
        thirds |= 1 << 9;
      }
    }
    const code =
      player |
      (banker << 4) |
      thirds |
      (p1 >> 2 === p2 >> 2 ? 1 << 10 : 0) |
      (b1 >> 2 === b2 >> 2 ? 1 << 11 : 0) |
      (p1 === p2 ? 1 << 12 : 0) |
      (b1 === b2 ? 1 << 13 : 0);
    histogram[code]!++;
    for (let bet = 0, offset = code * betCount; bet < betCount; bet++, offset++) {
      returned[bet]! += payouts[offset]!;
    }
    hands++;
    if (!everyRound && dealer.finished) shoeOpen = false;
    if (hands >= nextProgress) {
      options.onProgress?.(hands);
      nextProgress += progressEvery;
    }
  }
  const elapsedMs = performance.now() - started;

  const betResults = {} as Record<AnalyzedBet, SimulatedBet>;
  bets.forEach((bet, index) => {
    const staked = hands * SIMULATION_STAKE;
    const mean = returned[index]! / staked;
    // The second moment comes from the outcome histogram: the same sum, without a multiply per hand.
    let squares = 0;
    for (let code = 0; code < OUTCOME_CODES; code++) {
      const count = histogram[code]!;
      if (count === 0) continue;
      const payout = payouts[code * betCount + index]! / SIMULATION_STAKE;
      squares += count * payout * payout;
    }
    const meanSquare = squares / hands;
    const halfWidth = 1.959964 * Math.sqrt(Math.max(0, meanSquare - mean * mean) / hands);
    betResults[bet] = {
      staked,
      returned: returned[index]!,
      rtp: mean,
      ci95: [mean - halfWidth, mean + halfWidth],
    };
  });
  return {
    seed,
    hands,
    shoes,
    elapsedMs,
    handsPerSecond: hands / (elapsedMs / 1000),
    frequencies: frequenciesOf(histogram, hands),
    bets: betResults,
  };
}

function frequenciesOf(histogram: Float64Array, hands: number): Record<string, Frequency> {
  const events: Record<string, (code: number) => boolean> = {
    banker: (c) => ((c >> 4) & 15) > (c & 15),
    player: (c) => (c & 15) > ((c >> 4) & 15),
    tie: (c) => (c & 15) === ((c >> 4) & 15),
    player_pair: (c) => (c & (1 << 10)) !== 0,
    banker_pair: (c) => (c & (1 << 11)) !== 0,
    perfect_pair: (c) => (c & (3 << 12)) !== 0,
    player_natural: (c) => decodeOutcome(c).playerNatural,
    banker_natural: (c) => decodeOutcome(c).bankerNatural,
    banker_wins_with_6: (c) => decodeOutcome(c).winner === 'banker' && ((c >> 4) & 15) === 6,
  };
  const result: Record<string, Frequency> = {};
  for (const [name, matches] of Object.entries(events)) {
    let count = 0;
    histogram.forEach((n, code) => {
      if (n > 0 && matches(code)) count += n;
    });
    result[name] = { count, rate: count / hands };
  }
  return result;
}
