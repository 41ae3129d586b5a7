import { replayShoe, type ShoeReplay } from '@croupier/audit';
import { shoeIdSchema, streams } from '@croupier/contracts';
import { loadShoeEvidence } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { parseOptions, publishedOptions } from '../options.js';
import { ProgressBar } from '../progress.js';
import {
  apiToken,
  callApi,
  reportingUnavailable,
  STORE_UNAVAILABLE,
  withStore,
} from './audit-access.js';
import { shoeText } from './audit-text.js';

/** How many rounds the shoe stream says it dealt: the progress bar's length. */
function roundsIn(shoe: readonly { type: string; data: unknown }[]): number {
  let rounds = 0;
  for (const event of shoe) {
    const data = event.data as { roundNumber?: unknown; roundsDealt?: unknown };
    if (typeof data.roundNumber === 'number') rounds = Math.max(rounds, data.roundNumber);
    if (typeof data.roundsDealt === 'number') rounds = Math.max(rounds, data.roundsDealt);
  }
  return rounds;
}

export const replayCommand: Command = {
  name: 'replay',
  summary:
    'replay a shoe from its events alone: seed and commitment, burn, cut card, every card, round and payout, hash chains, digest (exit 1 if it does not verify)',
  usage:
    'croupier replay shoe SHOE_ID [--json] [--commitment HEX] [--digest HEX] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      json: { type: 'boolean', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
      commitment: { type: 'string' },
      digest: { type: 'string' },
    });
    const published = publishedOptions(values);
    if (published !== null && values.url !== undefined)
      throw new UsageError(
        '--commitment and --digest are compared with the store itself: drop --url, or export the shoe and verify the file',
      );
    const [what, shoeId, ...rest] = positionals;
    if (what !== 'shoe' || shoeId === undefined || rest.length > 0)
      throw new UsageError('give what to replay: replay shoe SHOE_ID');
    if (!shoeIdSchema.safeParse(shoeId).success)
      throw new UsageError(`"${shoeId}" is not a shoe id (<table>.<shoe number>, e.g. live.1)`);
    return reportingUnavailable(io.stderr, async () => {
      let replay: ShoeReplay;
      if (values.url !== undefined) {
        const token = await apiToken(values.token, 'regulator');
        replay = (await callApi(values.url, `/v1/audit/shoes/${shoeId}/replay`, token))
          .body as ShoeReplay;
      } else {
        const evidence = await withStore(async (store) => {
          const shoe = await store.readStream(streams.shoe(shoeId));
          if (shoe.length === 0) return null;
          const reading = new ProgressBar(io, Math.max(1, roundsIn(shoe) + 1), 'rounds read');
          const loaded = await loadShoeEvidence(store, shoeId, (read) => {
            reading.update(read);
          });
          reading.finish();
          return loaded;
        });
        if (evidence === null) {
          io.stderr(`no shoe "${shoeId}" in the event store\n`);
          return STORE_UNAVAILABLE;
        }
        const replaying = new ProgressBar(io, evidence.rounds.length + 1, 'streams replayed');
        replay = replayShoe(evidence, {
          published,
          onProgress: (done) => {
            replaying.update(done);
          },
        });
        replaying.finish();
      }
      io.stdout(values.json ? `${JSON.stringify(replay, null, 2)}\n` : shoeText(replay));
      return replay.verdict.ok ? 0 : 1;
    });
  },
};
