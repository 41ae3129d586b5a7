import { describe, expect, it } from 'vitest';
import {
  askPreview,
  beadPlate,
  bigRoad,
  derivedRoad,
  layOutStreaks,
  parseResults,
  renderGrid,
  roadsOf,
} from '../src/index.js';

const results = parseResults;

describe('bead plate', () => {
  it('fills six rows top to bottom, then left to right, ties included', () => {
    const cells = beadPlate(results('BPTBPPBB'));
    expect(cells.map((c) => [c.column, c.row, c.value.result])).toEqual([
      [0, 0, 'B'],
      [0, 1, 'P'],
      [0, 2, 'T'],
      [0, 3, 'B'],
      [0, 4, 'P'],
      [0, 5, 'P'],
      [1, 0, 'B'],
      [1, 1, 'B'],
    ]);
  });

  it('keeps the pair marks of each round', () => {
    const [cell] = beadPlate([{ result: 'B', bankerPair: true, playerPair: false }]);
    expect(cell!.value).toEqual({ result: 'B', bankerPair: true, playerPair: false });
  });

  it('reaches the API and CLI output with each cell and its pair marks', () => {
    const rounds = [
      ...results('BPBPBP'),
      { result: 'T' as const, bankerPair: true, playerPair: true },
      { result: 'P' as const, bankerPair: false, playerPair: true },
    ];
    const { beadCells, grids } = roadsOf(rounds);
    expect(beadCells.slice(6)).toEqual([
      { column: 1, row: 0, result: 'T', bankerPair: true, playerPair: true },
      { column: 1, row: 1, result: 'P', bankerPair: false, playerPair: true },
    ]);
    expect(beadCells.filter((c) => c.bankerPair || c.playerPair)).toHaveLength(2);
    expect(grids.beadPlate.map((row) => row.slice(1))).toEqual(['T', 'P', '.', '.', '.', '.']);
  });
});

describe('big road', () => {
  it('starts a new column whenever the winner changes, ties get no cell', () => {
    const road = roadsOf(results('BBPPPTBPBBB'));
    expect(road.bigRoad.columns).toEqual(['BB', 'PPP', 'B', 'P', 'BBB']);
    expect(road.bigRoad.ties).toEqual([{ column: 1, row: 2, count: 1 }]);
    expect(road.grids.bigRoad).toEqual(['BPBPB', 'BP..B', '.P..B', '.....', '.....', '.....']);
    // The drawn cells carry what the grid cannot: the tie on the third Player.
    expect(road.bigRoad.cells.find((c) => c.ties > 0)).toEqual({
      column: 1,
      row: 2,
      result: 'P',
      ties: 1,
      bankerPair: false,
      playerPair: false,
    });
  });

  it('marks ties before the first result on the first cell', () => {
    const road = bigRoad(results('TTBTP'));
    expect(road.streaks[0]![0]!.ties).toBe(3);
    expect(road.streaks[1]![0]!.ties).toBe(0);
    expect(road.pendingTies).toBe(0);
    expect(bigRoad(results('TT')).pendingTies).toBe(2);
    expect(roadsOf(results('TTB')).bigRoad.ties).toEqual([{ column: 0, row: 0, count: 2 }]);
  });

  it('turns a long streak right along the bottom row (dragon tail)', () => {
    const road = roadsOf(results('BBBBBBBB'));
    expect(road.grids.bigRoad).toEqual(['B..', 'B..', 'B..', 'B..', 'B..', 'BBB']);
  });

  it('turns a streak right early when an older tail blocks the cell below', () => {
    // Seven Bankers leave a tail on row 5 under column 1; six Players then turn at row 4.
    const cells = layOutStreaks([Array<string>(7).fill('B'), Array<string>(6).fill('P')]);
    const players = cells.filter((c) => c.value === 'P').map((c) => [c.column, c.row]);
    expect(players).toEqual([
      [1, 0],
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 4],
    ]);
    expect(renderGrid(cells, (v) => v)).toEqual(['BP.', 'BP.', 'BP.', 'BP.', 'BPP', 'BB.']);
  });

  it('once turned, a streak keeps going right even where the row below is free', () => {
    const cells = layOutStreaks([Array<string>(8).fill('B')]);
    expect(cells.slice(5).map((c) => [c.column, c.row])).toEqual([
      [0, 5],
      [1, 5],
      [2, 5],
    ]);
  });
});

describe('derived roads', () => {
  // Streak lengths 2, 3, 1, 1, 3; worked by hand from the rules in docs/rules.md (Scoreboards).
  const sequence = results('BBPPPBPBBB');

  it('big eye boy starts at the second entry of the second column', () => {
    expect(derivedRoad(sequence, 1).join('')).toBe('RBBBRBR');
    expect(derivedRoad(results('BBP'), 1)).toEqual([]); // nothing before its first mark
    expect(derivedRoad(results('BBPP'), 1)).toEqual(['R']);
    expect(derivedRoad(results('BPB'), 1)).toEqual(['R']); // first entry of the third column
  });

  it('small road and cockroach pig start one and two columns later', () => {
    expect(derivedRoad(sequence, 2).join('')).toBe('BBBR');
    expect(derivedRoad(sequence, 3).join('')).toBe('BRR');
    expect(derivedRoad(results('BPBP'), 2)).toEqual(['R']);
    expect(derivedRoad(results('BPBPB'), 3)).toEqual(['R']);
    expect(derivedRoad(results('BPBP'), 3)).toEqual([]);
  });

  it('ignores ties', () => {
    expect(derivedRoad(results('BTBTPTTPPBP'), 1)).toEqual(derivedRoad(results('BBPPPBP'), 1));
  });

  it('reports each road as marks and as a drawn grid', () => {
    const road = roadsOf(sequence);
    expect(road.bigEyeBoy).toBe('RBBBRBR');
    expect(road.smallRoad).toBe('BBBR');
    expect(road.cockroachPig).toBe('BRR');
    expect(road.grids.bigEyeBoy).toEqual(['RBRBR', '.B...', '.B...', '.....', '.....', '.....']);
  });

  it('asks what each road would show after a Banker or a Player', () => {
    const ask = askPreview(results('BBPPP'));
    expect(ask.banker).toEqual({ bigEyeBoy: 'B', smallRoad: null, cockroachPig: null });
    expect(ask.player).toEqual({ bigEyeBoy: 'R', smallRoad: null, cockroachPig: null });
    const later = askPreview(sequence);
    expect(later.banker.bigEyeBoy).toBe(derivedRoad(results('BBPPPBPBBBB'), 1).at(-1));
    expect(later.player.cockroachPig).toBe(derivedRoad(results('BBPPPBPBBBP'), 3).at(-1));
  });
});

describe('parsing results', () => {
  it('accepts B, P and T with spaces or commas, and names anything else', () => {
    expect(parseResults('b, p t').map((r) => r.result)).toEqual(['B', 'P', 'T']);
    expect(() => parseResults('BPX')).toThrow(/found "X"/);
  });
});
