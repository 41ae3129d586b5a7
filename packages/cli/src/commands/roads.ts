import { parseResults, roadsOf, type Roads } from '@croupier/baccarat';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions } from '../options.js';

export const roadsCommand: Command = {
  name: 'roads',
  summary: 'bead plate, big road and derived roads of a sequence of results',
  usage: 'croupier roads --results <B|P|T sequence> [--json]',
  run(args, io) {
    const { values } = parseOptions(args, {
      results: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if (values.results === undefined)
      throw new UsageError('--results is required, e.g. --results BBPTPB');
    let roads: Roads;
    try {
      roads = roadsOf(parseResults(values.results));
    } catch (error) {
      throw new UsageError(`--results: ${error instanceof Error ? error.message : String(error)}`);
    }
    io.stdout(values.json ? `${JSON.stringify(roads, null, 2)}\n` : readable(roads));
    return Promise.resolve(0);
  },
};

function tieNotes(roads: Roads): string {
  const notes = roads.bigRoad.ties.map(
    (t) => `column ${t.column + 1} entry ${t.row + 1}: ${t.count}`,
  );
  if (roads.bigRoad.pendingTies > 0)
    notes.push(`${roads.bigRoad.pendingTies} before the first result`);
  return notes.length > 0 ? `  ties marked: ${notes.join('; ')}\n` : '';
}

function readable(roads: Roads): string {
  const section = (title: string, rows: readonly string[], marks = '') =>
    `${title}${marks ? `  ${marks}` : ''}\n${rows.map((row) => `  ${row}`).join('\n')}\n`;
  const ask = (side: 'banker' | 'player') => {
    const preview = roads.ask[side];
    return `${preview.bigEyeBoy ?? '-'}${preview.smallRoad ?? '-'}${preview.cockroachPig ?? '-'}`;
  };
  return [
    section('Bead plate', roads.grids.beadPlate),
    section('Big road', roads.grids.bigRoad, roads.bigRoad.columns.join(' ')) + tieNotes(roads),
    section('Big eye boy (R repeats, B does not)', roads.grids.bigEyeBoy, roads.bigEyeBoy),
    section('Small road', roads.grids.smallRoad, roads.smallRoad),
    section('Cockroach pig', roads.grids.cockroachPig, roads.cockroachPig),
    `Ask: next Banker -> ${ask('banker')}   next Player -> ${ask('player')}  (big eye boy, small road, cockroach pig)\n`,
  ].join('\n');
}
