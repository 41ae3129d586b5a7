/**
 * Scoreboards (docs/rules.md, Scoreboards): bead plate, big road and the three derived roads, computed
 * from a shoe's results. Results are 'B' (Banker), 'P' (Player), 'T' (tie).
 */

export type RoadResult = 'B' | 'P' | 'T';
/** Derived-road marks: red ("repeating") or blue ("not repeating"), not Banker/Player. */
export type DerivedMark = 'R' | 'B';

export const ROAD_ROWS = 6;

export interface RoundMark {
  readonly result: RoadResult;
  readonly bankerPair?: boolean | undefined;
  readonly playerPair?: boolean | undefined;
}

export interface GridCell<T> {
  readonly column: number;
  readonly row: number;
  readonly value: T;
}

export interface BeadCell {
  readonly result: RoadResult;
  readonly bankerPair: boolean;
  readonly playerPair: boolean;
}

export interface BigRoadEntry {
  readonly result: 'B' | 'P';
  /** Ties marked on this cell (the ties that followed it; on the first cell also those before it). */
  readonly ties: number;
  readonly bankerPair: boolean;
  readonly playerPair: boolean;
}

/** The big road as logical streaks: a streak is a run of one winner, ties excluded. */
export interface BigRoad {
  readonly streaks: readonly (readonly BigRoadEntry[])[];
  /** Ties so far with no cell to mark yet (only before the first non-tie result). */
  readonly pendingTies: number;
}

export function parseResults(sequence: string): RoundMark[] {
  const compact = sequence.replace(/[\s,]/g, '').toUpperCase();
  const bad = /[^BPT]/.exec(compact);
  if (bad) throw new RangeError(`results may hold only B, P and T; found "${bad[0]}"`);
  return Array.from(compact, (result) => ({ result: result as RoadResult }));
}

/** Bead plate: one cell per round, ties included, top to bottom then left to right. */
export function beadPlate(rounds: readonly RoundMark[], rows = ROAD_ROWS): GridCell<BeadCell>[] {
  return rounds.map((round, index) => ({
    column: Math.floor(index / rows),
    row: index % rows,
    value: {
      result: round.result,
      bankerPair: round.bankerPair ?? false,
      playerPair: round.playerPair ?? false,
    },
  }));
}

export function bigRoad(rounds: readonly RoundMark[]): BigRoad {
  const streaks: BigRoadEntry[][] = [];
  let pendingTies = 0;
  let last: { streak: BigRoadEntry[]; index: number } | null = null;
  for (const round of rounds) {
    if (round.result === 'T') {
      if (last === null) {
        pendingTies++;
      } else {
        const entry = last.streak[last.index]!;
        last.streak[last.index] = { ...entry, ties: entry.ties + 1 };
      }
      continue;
    }
    const entry: BigRoadEntry = {
      result: round.result,
      ties: last === null ? pendingTies : 0,
      bankerPair: round.bankerPair ?? false,
      playerPair: round.playerPair ?? false,
    };
    pendingTies = 0;
    const current = streaks.at(-1);
    if (current?.[0]?.result === round.result) {
      current.push(entry);
      last = { streak: current, index: current.length - 1 };
    } else {
      streaks.push([entry]);
      last = { streak: streaks.at(-1)!, index: 0 };
    }
  }
  return { streaks, pendingTies };
}

/**
 * Lays streaks out on a grid of `rows` rows the way the big road and the derived roads are drawn:
 * each streak starts at row 0 in the column after the previous streak's first column, goes down
 * while the cell below is free and within the grid, and otherwise turns right and stays on that
 * row (the dragon tail).
 */
export function layOutStreaks<T>(
  streaks: readonly (readonly T[])[],
  rows = ROAD_ROWS,
): GridCell<T>[] {
  const cells: GridCell<T>[] = [];
  const taken = new Set<string>();
  const isTaken = (column: number, row: number): boolean => taken.has(`${column},${row}`);
  let previousStart = -1;
  for (const streak of streaks) {
    let column = previousStart + 1;
    while (isTaken(column, 0)) column++;
    previousStart = column;
    let row = 0;
    let turned = false;
    streak.forEach((value, index) => {
      if (index > 0) {
        if (!turned && row + 1 < rows && !isTaken(column, row + 1)) {
          row++;
        } else {
          turned = true;
          column++;
          while (isTaken(column, row)) column++;
        }
      }
      taken.add(`${column},${row}`);
      cells.push({ column, row, value });
    });
  }
  return cells;
}

/** The derived roads by their offset k: big eye boy 1, small road 2, cockroach pig 3. */
export const DERIVED_ROADS = { bigEyeBoy: 1, smallRoad: 2, cockroachPig: 3 } as const;
export type DerivedRoadName = keyof typeof DERIVED_ROADS;

/**
 * The mark a derived road with offset k gets for the big-road entry at streak c, row r, given
 * the streak lengths L so far; null before the road's first mark. docs/rules.md (Scoreboards).
 */
export function derivedMark(
  lengths: readonly number[],
  c: number,
  r: number,
  k: number,
): DerivedMark | null {
  if (r === 0) {
    if (c < k + 1) return null;
    return lengths[c - 1] === lengths[c - 1 - k] ? 'R' : 'B';
  }
  if (c < k) return null;
  const m = lengths[c - k]!;
  if (m >= r + 1) return 'R';
  return m === r ? 'B' : 'R';
}

/** Positions (streak c, row r) of each non-tie result, and the streak lengths as they grow. */
class StreakTracker {
  readonly lengths: number[] = [];
  private winner: 'B' | 'P' | null = null;

  add(result: 'B' | 'P'): { c: number; r: number } {
    if (result === this.winner) {
      const c = this.lengths.length - 1;
      const r = this.lengths[c]!;
      this.lengths[c] = r + 1;
      return { c, r };
    }
    this.winner = result;
    this.lengths.push(1);
    return { c: this.lengths.length - 1, r: 0 };
  }
}

/** The marks of one derived road, in order. */
export function derivedRoad(rounds: readonly RoundMark[], k: number): DerivedMark[] {
  const tracker = new StreakTracker();
  const marks: DerivedMark[] = [];
  for (const { result } of rounds) {
    if (result === 'T') continue;
    const { c, r } = tracker.add(result);
    const mark = derivedMark(tracker.lengths, c, r, k);
    if (mark !== null) marks.push(mark);
  }
  return marks;
}

/** Groups marks into streaks of equal marks, for drawing like a big road. */
export function streaksOf<T>(marks: readonly T[]): T[][] {
  const streaks: T[][] = [];
  for (const mark of marks) {
    const current = streaks.at(-1);
    if (current !== undefined && current[0] === mark) current.push(mark);
    else streaks.push([mark]);
  }
  return streaks;
}

export type AskPreview = Readonly<Record<DerivedRoadName, DerivedMark | null>>;

/** "Ask": what each derived road would show next if the next result were Banker, or Player. */
export function askPreview(rounds: readonly RoundMark[]): {
  banker: AskPreview;
  player: AskPreview;
} {
  const preview = (next: 'B' | 'P'): AskPreview => {
    const tracker = new StreakTracker();
    for (const { result } of rounds) if (result !== 'T') tracker.add(result);
    const { c, r } = tracker.add(next);
    return {
      bigEyeBoy: derivedMark(tracker.lengths, c, r, DERIVED_ROADS.bigEyeBoy),
      smallRoad: derivedMark(tracker.lengths, c, r, DERIVED_ROADS.smallRoad),
      cockroachPig: derivedMark(tracker.lengths, c, r, DERIVED_ROADS.cockroachPig),
    };
  };
  return { banker: preview('B'), player: preview('P') };
}

/** Renders grid cells as `rows` strings of equal width, '.' for an empty cell. */
export function renderGrid<T>(
  cells: readonly GridCell<T>[],
  symbol: (value: T) => string,
  rows = ROAD_ROWS,
): string[] {
  const width = cells.reduce((max, cell) => Math.max(max, cell.column + 1), 0);
  const grid = Array.from({ length: rows }, () => new Array<string>(width).fill('.'));
  for (const cell of cells) grid[cell.row]![cell.column] = symbol(cell.value);
  return grid.map((row) => row.join(''));
}

/** Every road of a sequence of results, as the CLI and the API present them. */
export interface Roads {
  readonly beadPlate: RoadResult[];
  /** The bead plate as drawn: each round's cell, with its pair marks (Banker top-left, Player bottom-right). */
  readonly beadCells: {
    column: number;
    row: number;
    result: RoadResult;
    bankerPair: boolean;
    playerPair: boolean;
  }[];
  readonly bigRoad: {
    readonly columns: string[];
    /** Tie marks by logical position: streak (column) and entry in it (row). */
    readonly ties: { column: number; row: number; count: number }[];
    readonly pendingTies: number;
    /** The big road as drawn: each result's cell, with its ties and pair marks. */
    readonly cells: {
      column: number;
      row: number;
      result: 'B' | 'P';
      ties: number;
      bankerPair: boolean;
      playerPair: boolean;
    }[];
  };
  readonly bigEyeBoy: string;
  readonly smallRoad: string;
  readonly cockroachPig: string;
  readonly ask: { banker: AskPreview; player: AskPreview };
  /** Each road drawn on its 6-row grid, one string per row, '.' for empty. */
  readonly grids: Readonly<Record<'beadPlate' | 'bigRoad' | DerivedRoadName, string[]>>;
}

export function roadsOf(rounds: readonly RoundMark[]): Roads {
  const big = bigRoad(rounds);
  const derived = {
    bigEyeBoy: derivedRoad(rounds, DERIVED_ROADS.bigEyeBoy),
    smallRoad: derivedRoad(rounds, DERIVED_ROADS.smallRoad),
    cockroachPig: derivedRoad(rounds, DERIVED_ROADS.cockroachPig),
  };
  const ties: { column: number; row: number; count: number }[] = [];
  big.streaks.forEach((streak, column) => {
    streak.forEach((entry, row) => {
      if (entry.ties > 0) ties.push({ column, row, count: entry.ties });
    });
  });
  const bigCells = layOutStreaks(big.streaks);
  const beadCells = beadPlate(rounds);
  const drawDerived = (marks: DerivedMark[]): string[] =>
    renderGrid(layOutStreaks(streaksOf(marks)), (mark) => mark);
  return {
    beadPlate: rounds.map((round) => round.result),
    beadCells: beadCells.map(({ column, row, value }) => ({ column, row, ...value })),
    bigRoad: {
      columns: big.streaks.map((streak) => streak.map((entry) => entry.result).join('')),
      ties,
      pendingTies: big.pendingTies,
      cells: bigCells.map(({ column, row, value }) => ({ column, row, ...value })),
    },
    bigEyeBoy: derived.bigEyeBoy.join(''),
    smallRoad: derived.smallRoad.join(''),
    cockroachPig: derived.cockroachPig.join(''),
    ask: askPreview(rounds),
    grids: {
      beadPlate: renderGrid(beadCells, (cell) => cell.result),
      bigRoad: renderGrid(bigCells, (entry) => entry.result),
      bigEyeBoy: drawDerived(derived.bigEyeBoy),
      smallRoad: drawDerived(derived.smallRoad),
      cockroachPig: drawDerived(derived.cockroachPig),
    },
  };
}
