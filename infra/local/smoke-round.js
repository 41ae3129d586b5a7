/* global process, fetch, AbortSignal, setTimeout */
/**
 * Plays rounds against a running distributed deployment and waits for each to be paid: opens the
 * table `smoke` (live preset) on the round service if it is not open, funds a player on the
 * wallet service, then per round: open, bet, close betting, deal, and poll the player's wallet
 * until no stake is open (settled by the settlement service, carried by the BullMQ bus, credited
 * by the wallet service). Prints one JSON line per round and exits non-zero if a round is not
 * paid within TIMEOUT_MS.
 *
 *   node --conditions=@croupier/source --import tsx infra/local/smoke-round.js
 *
 * Env: JWT_SECRET (required; infra/local/run-distributed.sh keeps it in RUN_DIR/secrets.env),
 * ROUND_URL (http://127.0.0.1:8084), WALLET_URL (http://127.0.0.1:8082), ROUNDS (1),
 * TIMEOUT_MS (30000), TABLE (smoke), PLAYER (smoke-player).
 */
import { TokenAuthority } from '../../packages/http/src/index.ts';

const ROUND_URL = process.env.ROUND_URL ?? 'http://127.0.0.1:8084';
const WALLET_URL = process.env.WALLET_URL ?? 'http://127.0.0.1:8082';
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 30_000);
const TABLE = process.env.TABLE ?? 'smoke';
const PLAYER = process.env.PLAYER ?? 'smoke-player';
if (process.env.JWT_SECRET === undefined) {
  process.stderr.write('smoke-round: set JWT_SECRET (the deployment signs tokens with it)\n');
  process.exit(2);
}
const tokens = new TokenAuthority(process.env.JWT_SECRET);
const operator = await tokens.issue({ id: 'smoke-operator', role: 'operator' });
const dealer = await tokens.issue({ id: 'smoke-dealer', role: 'dealer' });
const player = await tokens.issue({ id: PLAYER, role: 'player' });

async function call(token, method, url, body) {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const json = await response.json();
  return { status: response.status, json };
}
async function must(token, method, url, body) {
  const { status, json } = await call(token, method, url, body);
  if (status >= 400) throw new Error(`${method} ${url}: ${status} ${JSON.stringify(json)}`);
  return json;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const opened = await call(operator, 'POST', `${ROUND_URL}/v1/tables`, {
  tableId: TABLE,
  preset: 'live',
});
if (opened.status >= 400 && opened.json.code !== 'ALREADY_EXISTS')
  throw new Error(`open table: ${opened.status} ${JSON.stringify(opened.json)}`);
await must(operator, 'POST', `${WALLET_URL}/v1/wallets/${PLAYER}/deposits`, {
  amount: 100_000,
  currency: 'EUR',
  reference: 'smoke',
});

let failed = 0;
for (let i = 0; i < ROUNDS; i++) {
  const started = Date.now();
  let round;
  for (;;) {
    const result = await call(dealer, 'POST', `${ROUND_URL}/v1/tables/${TABLE}/rounds`);
    if (result.status < 400) {
      round = result.json;
      break;
    }
    // The previous round is settling, or a new shoe is being prepared.
    if (result.json.code !== 'ROUND_IN_PROGRESS' || Date.now() - started > TIMEOUT_MS)
      throw new Error(`open round: ${result.status} ${JSON.stringify(result.json)}`);
    await sleep(100);
  }
  await must(player, 'POST', `${ROUND_URL}/v1/rounds/${round.roundId}/bets`, {
    bets: [
      { type: 'banker', amount: 1_000 },
      { type: 'player', amount: 500 },
    ],
  });
  await must(dealer, 'POST', `${ROUND_URL}/v1/rounds/${round.roundId}/close-betting`);
  const dealt = await must(dealer, 'POST', `${ROUND_URL}/v1/rounds/${round.roundId}/deal`);
  const dealtAt = Date.now();
  let wallet;
  do {
    await sleep(50);
    wallet = await must(player, 'GET', `${WALLET_URL}/v1/wallets/${PLAYER}`);
  } while (wallet.openStakes > 0 && Date.now() - dealtAt < TIMEOUT_MS);
  const paid = wallet.openStakes === 0;
  if (!paid) failed++;
  process.stdout.write(
    `${JSON.stringify({
      roundId: round.roundId,
      status: dealt.status,
      paid,
      dealToPaidMs: Date.now() - dealtAt,
      balance: wallet.balance,
    })}\n`,
  );
}
process.exit(failed === 0 ? 0 : 1);
