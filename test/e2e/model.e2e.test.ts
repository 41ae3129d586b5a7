import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import {
  commandArbitrary,
  finishRun,
  MODEL_PLAYERS,
  newModel,
  newWorld,
  startRun,
  type Model,
} from '../support/model.js';
import {
  startOperatorWallet,
  OPERATOR_SECRET,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

/**
 * The model-based test of the whole command surface (issue 24, support/model.ts): random
 * sequences and concurrent batches of every player, dealer, supervisor and operator command,
 * against the real system over HTTP, with the model's invariants after every command and the
 * money, spots and audits at the end of every run.
 *
 * The budget comes from the environment: MODEL_RUNS runs of up to MODEL_STEPS commands each
 * (a short default for CI; `pnpm soak` runs it long). A failure prints the seed and path;
 * MODEL_SEED and MODEL_PATH replay it, shrunk, and nothing else.
 */
const DISTRIBUTED = DEPLOYMENT === 'distributed';
// CI's budget on the 2-core machine, measured with every run passing: 28 runs in one process
// take about 50 s (both modes), 16 distributed about 25 s.
const RUNS = Number(process.env.MODEL_RUNS ?? (DISTRIBUTED ? 16 : 28));
const STEPS = Number(process.env.MODEL_STEPS ?? 25);
/**
 * A fixed seed by default, as the fuzz has (FUZZ_SEED): CI draws the same command sequences on
 * every run, so a red CI is a change's doing, not a new draw. `MODEL_SEED=random` draws afresh
 * (the soak does, to search further); any number replays that seed.
 */
const SEED =
  process.env.MODEL_SEED === 'random' ? undefined : Number(process.env.MODEL_SEED ?? 20_261_202);
const PATH = process.env.MODEL_PATH;
/**
 * Shrinking a failure replays whole runs against the system: it stops after this long and
 * reports the smallest case found so far (MODEL_TIME_LIMIT_MS: the whole check's limit).
 */
const TIME_LIMIT_MS = Number(process.env.MODEL_TIME_LIMIT_MS ?? 200_000);
/**
 * Runs the property; on a failure, throws with the replay line first and the shrunk commands.
 */
async function checkModel(harness: Harness, wallet: OperatorWalletFixture | null): Promise<void> {
  const commands = commandArbitrary(MODEL_PLAYERS, {
    seamless: wallet !== null,
    steps: STEPS,
  });
  const details = await fc.check(
    fc.asyncProperty(commands, async (steps) => {
      const world = await newWorld(harness, wallet);
      const model: Model = newModel(world);
      await startRun(model, world);
      await fc.asyncModelRun(() => ({ model, real: world }), steps);
      await finishRun(model, world);
    }),
    {
      numRuns: RUNS,
      plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)],
      ...(SEED === undefined ? {} : { seed: SEED }),
      ...(PATH === undefined ? {} : { path: PATH }),
    },
  );
  if (details.failed) {
    const error = details.errorInstance;
    const shrunk = fc.stringify(details.counterexample);
    const path = details.counterexamplePath ?? '';
    throw new Error(
      `model test failed: replay with MODEL_SEED=${details.seed} MODEL_PATH=${path.split(':')[0]} ` +
        `(that run, shrunk again), or MODEL_PATH=${JSON.stringify(path)} (the shrunk case, when the system answers as it did)` +
        `${wallet === null ? '' : ' (seamless)'}\n` +
        `shrunk commands: ${shrunk}\n` +
        (error instanceof Error ? error.message : String(error)),
    );
  }
}

describe('every combination of commands keeps the rules and the money (model-based)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'postgres', gateway: true });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('transfer mode: random sequences and concurrent batches of every command', async () => {
    await checkModel(harness, null);
  });
});

describe.skipIf(DISTRIBUTED)(
  'seamless mode against a slow, lossy, failing operator wallet (model-based; one-process run only: the distributed deployment would need processes of its own for the seamless settings)',
  () => {
    let wallet: OperatorWalletFixture;
    let harness: Harness;
    beforeAll(async () => {
      wallet = await startOperatorWallet();
      harness = await startHarness({
        store: 'postgres',
        env: {
          WALLET_MODE: 'seamless',
          OPERATOR_WALLET_URL: wallet.url,
          OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
          OPERATOR_WALLET_TIMEOUT_MS: '1000',
          OPERATOR_WALLET_RETRIES: '1',
          OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
        },
      });
    });
    afterAll(async () => {
      await harness.close();
      await wallet.close();
    });

    it('seamless mode: the operator wallet holds funding - standing stakes + credits', async () => {
      await checkModel(harness, wallet);
    });
  },
);
