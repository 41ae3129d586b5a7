import { ANALYZED_BETS, simulate, type SimulationResult } from '@croupier/baccarat';
import { compact, percent, textTable } from '../format.js';
import type { Command } from '../io.js';
import { integerOption, parseOptions } from '../options.js';
import { ProgressBar } from '../progress.js';
import { chooseTable, offeredBets } from '../table-choice.js';

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'deal real shoes and settle every bet; observed RTP with 95% confidence intervals',
  usage: 'croupier simulate --hands N [--decks D] [--preset NAME] [--seed S] [--json]',
  run(args, io) {
    const { values } = parseOptions(args, {
      hands: { type: 'string' },
      decks: { type: 'string' },
      preset: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const hands = integerOption('hands', values.hands, { min: 1, max: 1e12 });
    const table = chooseTable(values);
    const bets =
      values.preset === undefined ? [...ANALYZED_BETS] : offeredBets(table, ANALYZED_BETS);
    const progress = new ProgressBar(io, hands, 'hands');
    const result = simulate({
      hands,
      table,
      seed: values.seed,
      progressEvery: Math.max(100_000, Math.floor(hands / 100)),
      onProgress: (done) => {
        progress.update(done);
      },
    });
    progress.finish();
    const report = {
      decks: table.decks,
      ...(values.preset === undefined ? {} : { preset: values.preset }),
      shufflePolicy: table.shufflePolicy,
      seed: result.seed,
      hands: result.hands,
      shoes: result.shoes,
      elapsedMs: Number(result.elapsedMs.toFixed(1)),
      handsPerSecond: Math.round(result.handsPerSecond),
      frequencies: result.frequencies,
      bets: Object.fromEntries(bets.map((bet) => [bet, result.bets[bet]])),
    };
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : readable(result, bets));
    return Promise.resolve(0);
  },
};

function readable(
  result: SimulationResult,
  bets: readonly (keyof SimulationResult['bets'])[],
): string {
  const f = result.frequencies;
  const rate = (name: string) => percent(f[name]?.rate ?? 0, 3);
  const header =
    `Simulated ${compact(result.hands)} hands in ${compact(result.shoes)} shoes ` +
    `(${compact(result.handsPerSecond)} hands/s, seed ${result.seed})\n\n` +
    `Banker ${rate('banker')}   Player ${rate('player')}   Tie ${rate('tie')}   ` +
    `Player pair ${rate('player_pair')}   Banker pair ${rate('banker_pair')}\n\n`;
  const rows = bets.map((bet) => {
    const b = result.bets[bet];
    return [bet, percent(b.rtp, 3), `${percent(b.ci95[0], 3)} .. ${percent(b.ci95[1], 3)}`];
  });
  return header + textTable(['bet', 'RTP', '95% confidence interval'], rows);
}
