import { replayShoe, type ShoeReplay } from '@croupier/audit';
import { shoeIdSchema, streams } from '@croupier/contracts';
import { anchorOf, loadShoeEvidence } from '@croupier/gateway';
import type { Command } from '../io.js';
import { UsageError } from '../io.js';
import { checkpointOption, parseOptions, REPORT_OPTIONS, publishedOptions } from '../options.js';
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
    'croupier replay shoe SHOE_ID [--json] [--commitment HEX] [--digest HEX] [--checkpoint FILE [--key-id ID]] [--url GATEWAY_URL [--token JWT]]',
  async run(args, io) {
    const { values, positionals } = parseOptions(args, {
      ...REPORT_OPTIONS,
      commitment: { type: 'string' },
      digest: { type: 'string' },
      checkpoint: { type: 'string' },
      'key-id': { type: 'string' },
    });
    const published = publishedOptions(values);
    const anchor = await checkpointOption(values);
    if (anchor !== null && values.url !== undefined)
      throw new UsageError(
        '--checkpoint reads the notary stream of the store itself: drop --url, or check the whole store over the API with casino verify --checkpoint FILE --url URL',
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
        const query = new URLSearchParams();
        if (published?.commitment) query.set('commitment', published.commitment);
        if (published?.digest) query.set('digest', published.digest);
        const path = `/v1/audit/shoes/${shoeId}/replay${query.size > 0 ? `?${query.toString()}` : ''}`;
        replay = (await callApi(values.url, path, token)).body as ShoeReplay;
      } else {
        const evidence = await withStore(async (store) => {
          // A shoe never shuffled is still replayed when wallet movements name its rounds (they
          // are forgeries to show); the loader decides, and answers null only when nothing does.
          const shoe = await store.readStream(streams.shoe(shoeId));
          const reading = new ProgressBar(io, Math.max(1, roundsIn(shoe) + 1), 'rounds read');
          const loaded = await loadShoeEvidence(store, shoeId, (read) => {
            reading.update(read);
          });
          reading.finish();
          if (loaded === null || anchor === null) return loaded;
          return {
            ...loaded,
            anchor: await anchorOf(store, anchor.published, anchor.keyId),
          };
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
