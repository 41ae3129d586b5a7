import { analyze, ANALYZED_BETS, type Analysis } from '@croupier/baccarat';
import { percent, textTable } from '../format.js';
import type { Command } from '../io.js';
import { parseOptions } from '../options.js';
import { chooseTable, offeredBets } from '../table-choice.js';

export const analyzeCommand: Command = {
  name: 'analyze',
  summary: 'exact house edge and RTP of every bet, by combinatorial analysis',
  usage: 'croupier analyze [--decks N] [--preset NAME] [--json]',
  run(args, io) {
    const { values } = parseOptions(args, {
      decks: { type: 'string' },
      preset: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    // Without --preset every bet of the rules is priced; with one, what that table offers.
    const table = chooseTable(values);
    const bets =
      values.preset === undefined ? [...ANALYZED_BETS] : offeredBets(table, ANALYZED_BETS);
    const started = performance.now();
    const analysis = analyze(table.decks, { tieOdds: table.tieOdds });
    const elapsedMs = performance.now() - started;
    const report = {
      decks: analysis.decks,
      ...(values.preset === undefined ? {} : { preset: values.preset }),
      tieOdds: analysis.tieOdds,
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
  const { probabilities: p } = analysis;
  const header =
    `Exact analysis: ${analysis.decks} deck${analysis.decks > 1 ? 's' : ''}, tie pays ${analysis.tieOdds}:1, ` +
    `every deal off the top of a full shoe (${elapsedMs.toFixed(0)} ms)\n\n` +
    `Banker wins ${percent(p.banker)}   Player wins ${percent(p.player)}   Tie ${percent(p.tie)}\n\n`;
  const rows = bets.map((bet) => [
    bet,
    percent(analysis.bets[bet].rtp),
    percent(analysis.bets[bet].houseEdge),
  ]);
  return header + textTable(['bet', 'RTP', 'house edge'], rows);
}
