/**
 * The figures a floor is run by, over one scope (a table, or a session game) and currency: what
 * `floor-figures` keeps per hour, day and dealer shift, and what a read adds up.
 */
export interface BetTypeFigures {
  /** Settled bets of the type. */
  readonly bets: number;
  /** Their stakes, minor units. */
  readonly turnover: number;
  /** What they returned to players (stake and winnings, pushes), minor units. */
  readonly returned: number;
  /** Commission their Banker wins accrued to seats (002), owed to the house, minor units. */
  readonly accruedCommission: number;
  /**
   * Sums over the settled bets of (net return)², stake² and stake × net return, where the net
   * return is what the bet returned less the commission it accrued: the observed RTP's spread
   * (its 95% interval). Floating point: an interval needs no exactness. Resettlements leave them.
   */
  readonly squares?: { readonly rr: number; readonly ss: number; readonly sr: number };
}

export interface Figures {
  /** Rounds settled. */
  readonly rounds: number;
  /** Rounds settled and later voided (their stakes returned by the resettlement). */
  readonly voidedAfterSettlement: number;
  readonly turnover: number;
  readonly returned: number;
  readonly accruedCommission: number;
  /** By bet type. */
  readonly bets: Readonly<Record<string, BetTypeFigures>>;
  /** The players who had a bet settled, sorted. */
  readonly players: readonly string[];
}

export const NO_FIGURES: Figures = {
  rounds: 0,
  voidedAfterSettlement: 0,
  turnover: 0,
  returned: 0,
  accruedCommission: 0,
  bets: {},
  players: [],
};

export const NO_BETS: BetTypeFigures = { bets: 0, turnover: 0, returned: 0, accruedCommission: 0 };

/** What one settlement or resettlement adds to a scope's figures. */
export interface FiguresDelta {
  readonly rounds?: number;
  readonly voidedAfterSettlement?: number;
  readonly lines: readonly {
    readonly type: string;
    readonly playerId: string;
    /** A settled bet counts once, with its stake; a resettlement changes only what it returns. */
    readonly bets: number;
    readonly turnover: number;
    readonly returned: number;
    readonly accruedCommission: number;
  }[];
}

const NO_SQUARES = { rr: 0, ss: 0, sr: 0 };
/** A settled bet's contribution to the squares (a resettlement's line contributes none). */
const squaresOf = (line: FiguresDelta['lines'][number]) => {
  if (line.bets === 0) return NO_SQUARES;
  const net = line.returned - line.accruedCommission;
  return { rr: net * net, ss: line.turnover * line.turnover, sr: line.turnover * net };
};
const addSquares = (a: BetTypeFigures['squares'], b: BetTypeFigures['squares']) => {
  const [x, y] = [a ?? NO_SQUARES, b ?? NO_SQUARES];
  return { rr: x.rr + y.rr, ss: x.ss + y.ss, sr: x.sr + y.sr };
};

/** A bet type's figures plus another's, the squares too. */
export const addBets = (a: BetTypeFigures, b: BetTypeFigures): BetTypeFigures => ({
  bets: a.bets + b.bets,
  turnover: a.turnover + b.turnover,
  returned: a.returned + b.returned,
  accruedCommission: a.accruedCommission + b.accruedCommission,
  squares: addSquares(a.squares, b.squares),
});

export function applyDelta(figures: Figures, delta: FiguresDelta): Figures {
  const bets: Record<string, BetTypeFigures> = { ...figures.bets };
  const players = new Set(figures.players);
  let turnover = figures.turnover;
  let returned = figures.returned;
  let accruedCommission = figures.accruedCommission;
  for (const line of delta.lines) {
    bets[line.type] = addBets(bets[line.type] ?? NO_BETS, { ...line, squares: squaresOf(line) });
    turnover += line.turnover;
    returned += line.returned;
    accruedCommission += line.accruedCommission;
    if (line.bets > 0) players.add(line.playerId);
  }
  return {
    rounds: figures.rounds + (delta.rounds ?? 0),
    voidedAfterSettlement: figures.voidedAfterSettlement + (delta.voidedAfterSettlement ?? 0),
    turnover,
    returned,
    accruedCommission,
    bets,
    players: [...players].sort(),
  };
}

/** Figures of several buckets of one scope and currency, added up (players counted once). */
export function sumFigures(all: readonly Figures[]): Figures {
  return all.reduce((sum, next) => {
    const bets: Record<string, BetTypeFigures> = { ...sum.bets };
    for (const [type, figures] of Object.entries(next.bets))
      bets[type] = addBets(bets[type] ?? NO_BETS, figures);
    return {
      rounds: sum.rounds + next.rounds,
      voidedAfterSettlement: sum.voidedAfterSettlement + next.voidedAfterSettlement,
      turnover: sum.turnover + next.turnover,
      returned: sum.returned + next.returned,
      accruedCommission: sum.accruedCommission + next.accruedCommission,
      bets,
      players: [...new Set([...sum.players, ...next.players])].sort(),
    };
  }, NO_FIGURES);
}

/** Hold % to this many decimal places. */
const HOLD_DECIMALS = 4;

/**
 * GGR (stakes - returns, plus the commission seats accrued: it is the house's as a deducted one
 * would be) and hold % (GGR / turnover x 100), computed on integers: the exact hold as a reduced
 * fraction of GGR over turnover, and the percentage rounded half to even at 4 decimal places
 * (null with no turnover).
 */
export function ggrOf(figures: Pick<Figures, 'turnover' | 'returned' | 'accruedCommission'>): {
  readonly ggr: number;
  readonly holdPercent: number | null;
  readonly holdExact: string | null;
} {
  const ggr = figures.turnover - figures.returned + figures.accruedCommission;
  if (figures.turnover === 0) return { ggr, holdPercent: null, holdExact: null };
  return {
    ggr,
    holdPercent: percentOf(BigInt(ggr), BigInt(figures.turnover)),
    holdExact: reduced(BigInt(ggr), BigInt(figures.turnover)),
  };
}

/** num / den x 100, rounded half to even at HOLD_DECIMALS places, from integers only. */
export function percentOf(num: bigint, den: bigint): number {
  const scale = 10n ** BigInt(HOLD_DECIMALS + 2);
  const scaled = num * scale;
  const negative = scaled < 0n !== den < 0n;
  const a = scaled < 0n ? -scaled : scaled;
  const d = den < 0n ? -den : den;
  let q = a / d;
  const twice = (a % d) * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) q += 1n;
  const units = Number(negative ? -q : q);
  return units / 10 ** HOLD_DECIMALS;
}

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** "num/den", reduced. */
export function reduced(num: bigint, den: bigint): string {
  const divisor = gcd(num, den) || 1n;
  return `${num / divisor}/${den / divisor}`;
}
