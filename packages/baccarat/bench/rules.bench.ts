/**
 * Rules-engine benchmarks. Prints one JSON line per measurement on stdout.
 * Targets (issue 2): exact analysis of all bets for 8 decks under 200 ms; simulation of at
 * least 3 million hands dealt and fully settled per second on one core.
 */
import { analyze, simulate, type SimulatedTable } from '../src/index.js';

const hands = Number(process.env.BENCH_HANDS ?? 20_000_000);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeAnalysis(decks: number, runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    analyze(decks);
    times.push(performance.now() - started);
  }
  return { first: times[0]!, median: median(times), best: Math.min(...times) };
}

const emit = (record: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);
};

const cold = timeAnalysis(8, 1);
const warm = timeAnalysis(8, 15);
emit({
  bench: 'analyze',
  decks: 8,
  bets: 15,
  firstRunMs: Number(cold.first.toFixed(1)),
  medianMs: Number(warm.median.toFixed(1)),
  bestMs: Number(warm.best.toFixed(1)),
  targetMs: 200,
  met: cold.first < 200 && warm.median < 200,
});

const tables: Record<string, SimulatedTable> = {
  'live (8 decks, shoe, burn, cut card 16)': {
    decks: 8,
    shufflePolicy: 'shoe',
    burn: true,
    cutCard: 16,
    tieOdds: 8,
    commission: 'deducted',
  },
  'touch (8 decks, fresh shuffle every round)': {
    decks: 8,
    shufflePolicy: 'every-round',
    burn: false,
    cutCard: null,
    tieOdds: 8,
    commission: 'deducted',
  },
};
for (const [name, table] of Object.entries(tables)) {
  simulate({ hands: 500_000, table, seed: 'warm-up' });
  const result = simulate({ hands, table, seed: 'bench' });
  emit({
    bench: 'simulate',
    table: name,
    hands: result.hands,
    betsSettledPerHand: Object.keys(result.bets).length,
    elapsedMs: Number(result.elapsedMs.toFixed(0)),
    handsPerSecond: Math.round(result.handsPerSecond),
    target: 3_000_000,
    met: result.handsPerSecond >= 3_000_000,
  });
}
