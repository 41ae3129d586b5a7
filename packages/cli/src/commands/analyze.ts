import { analyze, ANALYZED_BETS, type Analysis } from '@croupier/baccarat';
import { percent, textTable } from '../format.js';
import type { Command } from '../io.js';
import { integerOption, parseOptions } from '../options.js';
import { chooseTable, offeredBets } from '../table-choice.js';

export const analyzeCommand: Command = {
  name: 'analyze',
  summary: 'exact house edge and RTP of every bet, by combinatorial analysis',
  usage: 'croupier analyze [--decks N] [--preset NAME] [--stake AMOUNT] [--json]',
  run(args, io) {
    const { values } = parseOptions(args, {
      decks: { type: 'string' },
      preset: { type: 'string' },
      stake: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    // Without --preset every bet of the rules is priced; with one, what that table offers.
    const table = chooseTable(values);
    const bets =
      values.preset === undefined ? [...ANALYZED_BETS] : offeredBets(table, ANALYZED_BETS);
    // Minor units, as the API's amounts: the return of a bet of exactly that stake, payouts
    // rounded down as they are paid.
    const stake =
      values.stake === undefined
        ? undefined
        : integerOption('stake', values.stake, { min: 1, max: Number.MAX_SAFE_INTEGER });
    const started = performance.now();
    const analysis = analyze(table.decks, {
      tieOdds: table.tieOdds,
      commission: table.commission,
      ...(stake === undefined ? {} : { stake }),
    });
    const elapsedMs = performance.now() - started;
    const report = {
      decks: analysis.decks,
      ...(values.preset === undefined ? {} : { preset: values.preset }),
      tieOdds: analysis.tieOdds,
      ...(stake === undefined ? {} : { stake }),
      probabilities: analysis.probabilities,
      bets: Object.fromEntries(bets.map((bet) => [bet, analysis.bets[bet]])),
      elapsedMs: Number(elapsedMs.toFixed(1)),
    };
    io.stdout(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : readable(analysis, bets, elapsedMs),
    );
    return Promise.resolve(0);
  },
};

function readable(
  analysis: Analysis,
  bets: readonly (keyof Analysis['bets'])[],
  elapsedMs: number,
): string {
  const { probabilities: p, stake } = analysis;
  const header =
    `Exact analysis: ${analysis.decks} deck${analysis.decks > 1 ? 's' : ''}, tie pays ${analysis.tieOdds}:1, ` +
    `every deal off the top of a full shoe (${elapsedMs.toFixed(0)} ms)\n\n` +
    `Banker wins ${percent(p.banker)}   Player wins ${percent(p.player)}   Tie ${percent(p.tie)}\n\n`;
  if (stake === undefined) {
    const rows = bets.map((bet) => [
      bet,
      percent(analysis.bets[bet].rtp),
      percent(analysis.bets[bet].houseEdge),
    ]);
    return header + textTable(['bet', 'RTP', 'house edge'], rows);
  }
  const rows = bets.map((bet) => [
    bet,
    percent(analysis.bets[bet].rtp),
    percent(analysis.bets[bet].houseEdge),
    percent(analysis.bets[bet].effectiveRtp!),
  ]);
  return (
    header +
    `At a stake of ${stake} minor units, every payout rounded down to the minor unit:\n\n` +
    textTable(['bet', 'RTP', 'house edge', `RTP at ${stake}`], rows)
  );
}
