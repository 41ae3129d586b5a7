import { randomUUID } from 'node:crypto';
import { presetConfig, type TableConfig } from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';
import fc from 'fast-check';
import type { ApiClient, Response } from './api.js';
import {
  checkMoney,
  checkSpots,
  settledEverywhere,
  allEvents,
  spotProblems,
} from './invariants.js';
import type { Fault, OperatorWalletFixture } from './seamless-wallet.js';
import type { Harness } from './harness.js';
import { fund, openTable, type RoundView } from './play.js';

/**
 * The model-based test of the whole command surface (issue 24): fast-check draws sequences of
 * commands a player, dealer, supervisor and operator have, and batches of them sent at once, and
 * runs them against the real system through its HTTP API. The model is small on purpose: which
 * round each table and session is on, who sits where, and, per round and player, the chips the
 * player believes stand (those a 2xx accepted, less those a 2xx removed). A refusal is part of
 * the game and tolerated; a 400 to a well-formed request, a 403 to the right role or a 5xx is
 * not. After every command the rounds it touched must hold exactly the chips their players
 * believe in, and every dealt spot must keep the rules; at the end of a run every round comes to
 * rest and the money, the audits and the operator's wallet are checked (`finishRun`).
 */

/** The shared tables of a run: a live table (difference limit), a land-based one, a scanner. */
export type TableKey = 'live' | 'land' | 'scan';
/** Where a player's command goes: a shared table, or the player's own session. */
export type Target = TableKey | 'session';

export const CONFIGS: Readonly<Record<Target, TableConfig>> = {
  live: presetConfig('live'),
  land: presetConfig('land-based'),
  scan: presetConfig('generic', { cardSource: 'scanner', burn: false }),
  session: presetConfig('touch'),
};

/**
 * Chip values per target, in minor units: below the minimum, at it, stacked past the maximum,
 * and (live) hedges that only the difference limit allows.
 */
const CHIPS: Readonly<Record<Target, readonly number[]>> = {
  live: [1, 100, 2_500, 200_000, 600_000],
  land: [1, 1_000, 5_000, 60_000],
  scan: [1, 100, 2_500, 60_000],
  session: [1, 10, 15, 45],
};

/** Natural hands for a scanner round (four cards, no third): player 9, banker 8, tie, player 8. */
const SCANNED_HANDS: readonly (readonly string[])[] = [
  ['9C', '2D', 'KH', '3S'],
  ['2C', '8D', 'KS', 'JH'],
  ['9H', '9D', 'QC', 'QS'],
  ['4C', '5D', '4H', '2S'],
];

export interface Chip {
  readonly betId: string;
  readonly playerId: string;
  readonly type: string;
  readonly amount: number;
  readonly bankerMode: string | null;
}

export interface RoundModel {
  readonly roundId: string;
  readonly target: Target;
  /** Chips the players believe stand, by bet id. */
  readonly chips: Map<string, Chip>;
  /** Players whose chips on this round the model no longer knows (an answer lost). */
  readonly uncertain: Set<string>;
}

export interface Model {
  readonly tables: Record<TableKey, { closed: boolean; roundId: string | null }>;
  /** Each player's own session, once opened. */
  readonly sessions: ({ sessionId: string; fun: boolean } | null)[];
  /** Each player's seat at the land-based table. */
  readonly seats: (number | null)[];
  readonly rounds: Map<string, RoundModel>;
  /** What the network to the operator's wallet does now (seamless mode). */
  fault: Fault | 'slow';
}

/** The system under test for one run: constant while the run goes. */
export interface World {
  readonly api: ApiClient;
  /** The sessions the run's players opened (their streams are the run's too). */
  readonly sessions: Set<string>;
  /** The operator's wallet in seamless mode; null in transfer mode. */
  readonly wallet: OperatorWalletFixture | null;
  readonly players: readonly string[];
  readonly tables: Readonly<Record<TableKey, string>>;
  /** What each player was given: deposits less withdrawals, or the operator's opening balance. */
  readonly funding: Map<string, number>;
  /**
   * The run's own events: the store holds every run's (and those of the runs fast-check tried
   * while shrinking, some left mid-way), so the end of a run reads its own tables', sessions'
   * and players' streams only.
   */
  readonly store: EventStore;
}

export function newModel(world: World): Model {
  return {
    tables: {
      live: { closed: false, roundId: null },
      land: { closed: false, roundId: null },
      scan: { closed: false, roundId: null },
    },
    sessions: world.players.map(() => null),
    seats: world.players.map(() => null),
    rounds: new Map(),
    fault: 'pass',
  };
}

type Outcome = 'ok' | 'refused' | 'unknown';

/**
 * What an answer means. A 2xx did it; a 404, 409 or 422 is a rule's refusal (which must move no
 * money: the end of the run checks that). A 5xx is tolerated only while the operator's wallet is
 * faulty, and then the model no longer knows what the request did. Anything else is a defect:
 * the test sends only well-formed requests with the right role, so a 400 or 403 is the system
 * refusing what it must take.
 */
function judge(model: Model, what: string, response: Response): Outcome {
  const { status } = response;
  if (process.env.MODEL_VERBOSE === '1')
    process.stderr.write(
      `[model]   ${what}: ${status}${status >= 300 ? ` ${(response.body as { code?: string }).code}` : ''}\n`,
    );
  if (status >= 200 && status < 300) return 'ok';
  if ([404, 409, 422].includes(status)) return 'refused';
  if (status >= 500 && model.fault !== 'pass') return 'unknown';
  throw new Error(`${what}: answered ${status} ${JSON.stringify(response.body)}`);
}

function roundModel(model: Model, roundId: string, target: Target): RoundModel {
  let round = model.rounds.get(roundId);
  if (round === undefined) {
    round = { roundId, target, chips: new Map(), uncertain: new Set() };
    model.rounds.set(roundId, round);
  }
  return round;
}

/** The round a player's command on `target` goes to, or null when there is none to go to. */
async function roundOf(
  model: Model,
  world: World,
  player: number,
  target: Target,
): Promise<string | null> {
  if (target !== 'session') return model.tables[target].roundId;
  const session = model.sessions[player] ?? null;
  if (session === null) return null;
  const what = `session round of ${session.sessionId}`;
  const response = await world.api
    .as('player', world.players[player])
    .post<RoundView>(`/v1/sessions/${session.sessionId}/rounds`);
  if (judge(model, what, response) !== 'ok') return null;
  roundModel(model, response.body.roundId, 'session');
  return response.body.roundId;
}

/** A command of the model: it says which rounds it touched, and the step checks them. */
/** Whether the player's target has a round to act on: their session, or the table's round. */
function hasRound(model: Readonly<Model>, player: number, target: Target): boolean {
  return target === 'session'
    ? model.sessions[player] !== null
    : model.tables[target].roundId !== null;
}

export abstract class Step implements fc.AsyncCommand<Model, World> {
  abstract check(model: Readonly<Model>): boolean;
  abstract act(model: Model, world: World): Promise<readonly string[]>;
  abstract toString(): string;
  async run(model: Model, world: World): Promise<void> {
    if (process.env.MODEL_VERBOSE === '1') process.stderr.write(`[model] ${String(this)}\n`);
    const touched = await this.act(model, world);
    await checkStep(model, world, touched);
  }
}

interface ChipChoice {
  readonly type: 'player' | 'banker' | 'tie';
  readonly value: number;
  readonly commission: boolean;
}

const describeChips = (chips: readonly ChipChoice[]) =>
  chips.map((c) => `${c.type}#${c.value}${c.commission ? '' : '/nc'}`).join('+');

function chipsOf(target: Target, choices: readonly ChipChoice[]) {
  const values = CHIPS[target];
  return choices.map((c) => ({
    betId: randomUUID(),
    type: c.type,
    amount: values[c.value % values.length]!,
    ...(c.type === 'banker' && target === 'live'
      ? { bankerMode: c.commission ? 'commission' : 'no_commission' }
      : {}),
  }));
}

/** Places chips on one spot or several, in one request. */
export class Bet extends Step {
  constructor(
    readonly player: number,
    readonly target: Target,
    readonly chips: readonly ChipChoice[],
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return hasRound(model, this.player, this.target);
  }
  async act(model: Model, world: World) {
    const roundId = await roundOf(model, world, this.player, this.target);
    if (roundId === null) return [];
    return [await placeChips(model, world, this.player, roundId, chipsOf(this.target, this.chips))];
  }
  toString() {
    return `bet(p${this.player}, ${this.target}, ${describeChips(this.chips)})`;
  }
}

async function placeChips(
  model: Model,
  world: World,
  player: number,
  roundId: string,
  bets: readonly { betId: string; type: string; amount: number; bankerMode?: string }[],
): Promise<string> {
  const playerId = world.players[player]!;
  const response = await world.api
    .as('player', playerId)
    .post<RoundView>(`/v1/rounds/${roundId}/bets`, { bets });
  const outcome = judge(model, `bets of ${playerId} on ${roundId}`, response);
  const round = model.rounds.get(roundId)!;
  if (outcome === 'ok')
    for (const bet of bets) round.chips.set(bet.betId, { bankerMode: null, ...bet, playerId });
  if (outcome === 'unknown') round.uncertain.add(playerId);
  return roundId;
}

/**
 * A client retrying: request A places X and Y, and a moment later request B places X again (the
 * same bet id), both in flight at once. X stands if either was accepted, Y only if A was.
 */
export class RetriedBet extends Step {
  constructor(
    readonly player: number,
    readonly target: Target,
    readonly chips: readonly [ChipChoice, ChipChoice],
    readonly staggerMs: number,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return hasRound(model, this.player, this.target);
  }
  async act(model: Model, world: World) {
    const roundId = await roundOf(model, world, this.player, this.target);
    if (roundId === null) return [];
    const [x, y] = chipsOf(this.target, this.chips) as [
      ReturnType<typeof chipsOf>[number],
      ReturnType<typeof chipsOf>[number],
    ];
    await Promise.all([
      placeChips(model, world, this.player, roundId, [x, y]),
      new Promise((resolve) => setTimeout(resolve, this.staggerMs)).then(() =>
        placeChips(model, world, this.player, roundId, [x]),
      ),
    ]);
    return [roundId];
  }
  toString() {
    return `retriedBet(p${this.player}, ${this.target}, ${describeChips(this.chips)}, +${this.staggerMs}ms)`;
  }
}

/** Takes one chip off: the one the player believes stands at `pick` (modulo their count). */
export class RemoveChip extends Step {
  constructor(
    readonly player: number,
    readonly target: Target,
    readonly pick: number,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return hasRound(model, this.player, this.target);
  }
  async act(model: Model, world: World) {
    const roundId = await roundOf(model, world, this.player, this.target);
    if (roundId === null) return [];
    const playerId = world.players[this.player]!;
    const round = model.rounds.get(roundId)!;
    const mine = [...round.chips.values()].filter((c) => c.playerId === playerId);
    if (mine.length === 0) return [];
    const chip = mine[this.pick % mine.length]!;
    const response = await world.api
      .as('player', playerId)
      .delete(`/v1/rounds/${roundId}/bets/${chip.betId}`);
    const outcome = judge(model, `removing ${chip.betId} from ${roundId}`, response);
    if (outcome === 'ok') round.chips.delete(chip.betId);
    if (outcome === 'unknown') round.uncertain.add(playerId);
    return [roundId];
  }
  toString() {
    return `removeChip(p${this.player}, ${this.target}, #${this.pick})`;
  }
}

export class Clear extends Step {
  constructor(
    readonly player: number,
    readonly target: Target,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return hasRound(model, this.player, this.target);
  }
  async act(model: Model, world: World) {
    const roundId = await roundOf(model, world, this.player, this.target);
    if (roundId === null) return [];
    const playerId = world.players[this.player]!;
    const response = await world.api.as('player', playerId).delete(`/v1/rounds/${roundId}/bets`);
    const outcome = judge(model, `clearing ${playerId}'s bets on ${roundId}`, response);
    const round = model.rounds.get(roundId)!;
    if (outcome === 'ok')
      for (const chip of [...round.chips.values()])
        if (chip.playerId === playerId) round.chips.delete(chip.betId);
    if (outcome === 'unknown') round.uncertain.add(playerId);
    return [roundId];
  }
  toString() {
    return `clear(p${this.player}, ${this.target})`;
  }
}

/**
 * Rebet x1 or x2: on a table, the rebet route; on a session, Deal with `rebet` (it deals too).
 * The chips it placed are read from its answer: the rebet says what it repeated.
 */
export class Rebet extends Step {
  constructor(
    readonly player: number,
    readonly target: Target,
    readonly multiplier: 1 | 2,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return hasRound(model, this.player, this.target);
  }
  async act(model: Model, world: World) {
    const roundId = await roundOf(model, world, this.player, this.target);
    if (roundId === null) return [];
    const playerId = world.players[this.player]!;
    const caller = world.api.as('player', playerId);
    const response =
      this.target === 'session'
        ? await caller.post<RoundView>(
            `/v1/sessions/${model.sessions[this.player]!.sessionId}/deal`,
            {
              rebet: this.multiplier,
              roundId,
            },
          )
        : await caller.post<RoundView>(`/v1/rounds/${roundId}/rebet`, {
            multiplier: this.multiplier,
          });
    const outcome = judge(
      model,
      `rebet x${this.multiplier} of ${playerId} on ${roundId}`,
      response,
    );
    const round = model.rounds.get(roundId)!;
    if (outcome === 'ok') {
      for (const bet of response.body.bets) {
        if (bet.playerId !== playerId || bet.status !== 'active' || round.chips.has(bet.betId))
          continue;
        const { betId, type, amount } = bet;
        const bankerMode = (bet as { bankerMode?: string | null }).bankerMode ?? null;
        round.chips.set(betId, { betId, playerId, type, amount, bankerMode });
      }
    }
    if (outcome === 'unknown') round.uncertain.add(playerId);
    return [roundId];
  }
  toString() {
    return `rebet(p${this.player}, ${this.target}, x${this.multiplier})`;
  }
}

/** The dealer opens the table's next round. */
export class NextRound extends Step {
  constructor(readonly table: TableKey) {
    super();
  }
  check() {
    return true;
  }
  async act(model: Model, world: World) {
    const response = await world.api
      .as('dealer')
      .post<RoundView>(`/v1/tables/${world.tables[this.table]}/rounds`);
    if (judge(model, `next round of ${this.table}`, response) !== 'ok') return [];
    model.tables[this.table].roundId = response.body.roundId;
    roundModel(model, response.body.roundId, this.table);
    return [response.body.roundId];
  }
  toString() {
    return `next(${this.table})`;
  }
}

/** A dealer or supervisor command on the table's current round (or a player's session round). */
export class RoundCommand extends Step {
  constructor(
    readonly kind: 'close-betting' | 'deal' | 'void' | 'pause' | 'resume',
    readonly target: Target,
    readonly player: number,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    if (this.target === 'session')
      return model.sessions[this.player] !== null && this.kind !== 'close-betting';
    return model.tables[this.target].roundId !== null;
  }
  async act(model: Model, world: World) {
    const roundId =
      this.target === 'session'
        ? currentSessionRound(model, this.player)
        : model.tables[this.target].roundId;
    if (roundId === null) return [];
    const what = `${this.kind} ${roundId}`;
    const { api } = world;
    switch (this.kind) {
      case 'deal':
        if (this.target === 'session') {
          const session = model.sessions[this.player]!;
          judge(
            model,
            what,
            await api
              .as('player', world.players[this.player])
              .post(`/v1/sessions/${session.sessionId}/deal`, { roundId }),
          );
        } else if (this.target === 'scan') {
          await dealScanned(model, world, roundId);
        } else {
          // The dealer closes betting and deals, as at the table; a close-betting of its own
          // is another command, which may come first or race it.
          judge(
            model,
            `close-betting ${roundId}`,
            await api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`),
          );
          judge(model, what, await api.as('dealer').post(`/v1/rounds/${roundId}/deal`));
        }
        break;
      case 'void':
      case 'pause':
        judge(
          model,
          what,
          await api
            .as('supervisor')
            .post(`/v1/rounds/${roundId}/${this.kind}`, { reason: `model: ${this.kind}` }),
        );
        break;
      default:
        judge(model, what, await api.as('supervisor').post(`/v1/rounds/${roundId}/${this.kind}`));
    }
    return [roundId];
  }
  toString() {
    return `${this.kind}(${this.target === 'session' ? `session p${this.player}` : this.target})`;
  }
}

/** The latest round of the player's session the model knows. */
function currentSessionRound(model: Readonly<Model>, player: number): string | null {
  const session = model.sessions[player] ?? null;
  if (session === null) return null;
  const ids = [...model.rounds.keys()].filter((id) => id.startsWith(`${session.sessionId}.`));
  return ids.at(-1) ?? null;
}

/** A scanner round: betting closes, the reader reads a natural hand, the dealer confirms. */
async function dealScanned(model: Model, world: World, roundId: string): Promise<void> {
  const dealer = world.api.as('dealer');
  const hand = SCANNED_HANDS[Number.parseInt(roundId.split('.').at(-1)!, 10) % 4]!;
  judge(
    model,
    `close-betting ${roundId}`,
    await dealer.post(`/v1/rounds/${roundId}/close-betting`),
  );
  for (const card of hand) {
    const read = await dealer.post(`/v1/rounds/${roundId}/cards`, { card });
    if (judge(model, `card ${card} on ${roundId}`, read) !== 'ok') return;
  }
  judge(model, `confirm ${roundId}`, await dealer.post(`/v1/rounds/${roundId}/confirm`));
}

/** A supervisor corrects a card of the scanner table's round (refused if it changes the draw). */
export class CorrectCard extends Step {
  constructor(
    readonly position: number,
    readonly card: string,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return model.tables.scan.roundId !== null;
  }
  async act(model: Model, world: World) {
    const roundId = model.tables.scan.roundId!;
    const view = await world.api.as('regulator').get<RoundView>(`/v1/rounds/${roundId}`);
    const cards = [...view.body.cards.player, ...view.body.cards.banker];
    if (cards.length === 0) return [];
    const { shoePosition } = cards[this.position % cards.length]!;
    judge(
      model,
      `correcting card ${shoePosition} of ${roundId}`,
      await world.api
        .as('supervisor')
        .post(`/v1/rounds/${roundId}/cards/${shoePosition}/correction`, {
          card: this.card,
          reason: 'model: video review',
        }),
    );
    return [roundId];
  }
  toString() {
    return `correctCard(scan, #${this.position}, ${this.card})`;
  }
}

/** A player takes a seat at the land-based table, or leaves theirs. */
export class Seat extends Step {
  constructor(
    readonly player: number,
    readonly seat: number | null,
  ) {
    super();
  }
  check() {
    return true;
  }
  async act(model: Model, world: World) {
    const caller = world.api.as('player', world.players[this.player]);
    const table = world.tables.land;
    if (this.seat === null) {
      const mine = model.seats[this.player];
      if (mine === null) return [];
      const response = await caller.delete(`/v1/tables/${table}/seats/${mine}`);
      if (judge(model, `leaving seat ${mine}`, response) === 'ok') model.seats[this.player] = null;
    } else {
      const response = await caller.post(`/v1/tables/${table}/seats/${this.seat}`);
      if (judge(model, `taking seat ${this.seat}`, response) === 'ok')
        model.seats[this.player] = this.seat;
    }
    return model.tables.land.roundId === null ? [] : [model.tables.land.roundId];
  }
  toString() {
    return this.seat === null ? `leave(p${this.player})` : `seat(p${this.player}, ${this.seat})`;
  }
}

/** The dealer changes at the land-based table: the shift's accrued commission is collected. */
export class DealerChange extends Step {
  constructor(readonly dealer: number) {
    super();
  }
  check() {
    return true;
  }
  async act(model: Model, world: World) {
    judge(
      model,
      'dealer change',
      await world.api.as('supervisor').post(`/v1/tables/${world.tables.land}/dealer`, {
        dealerId: `model-dealer-${this.dealer}`,
      }),
    );
    return [];
  }
  toString() {
    return `dealerChange(land, d${this.dealer})`;
  }
}

/** The operator closes a shared table: no new round; the one in progress is finished. */
export class CloseTable extends Step {
  constructor(readonly table: TableKey) {
    super();
  }
  check(model: Readonly<Model>) {
    return !model.tables[this.table].closed;
  }
  async act(model: Model, world: World) {
    const response = await world.api
      .as('operator')
      .post(`/v1/tables/${world.tables[this.table]}/close`, { reason: 'model: closing' });
    if (judge(model, `closing ${this.table}`, response) === 'ok')
      model.tables[this.table].closed = true;
    return [];
  }
  toString() {
    return `closeTable(${this.table})`;
  }
}

/** A player opens a session of their own, for real or play money (topping play money up). */
export class OpenSession extends Step {
  constructor(
    readonly player: number,
    readonly fun: boolean,
  ) {
    super();
  }
  check(model: Readonly<Model>) {
    return model.sessions[this.player] === null;
  }
  async act(model: Model, world: World) {
    const caller = world.api.as('player', world.players[this.player]);
    if (this.fun)
      judge(
        model,
        'play money',
        await caller.post(`/v1/wallets/${world.players[this.player]}/play-money`),
      );
    const response = await caller.post<{ sessionId: string }>('/v1/sessions', {
      preset: 'touch',
      mode: this.fun ? 'fun' : 'real',
    });
    if (judge(model, 'opening a session', response) === 'ok') {
      model.sessions[this.player] = { sessionId: response.body.sessionId, fun: this.fun };
      world.sessions.add(response.body.sessionId);
    }
    return [];
  }
  toString() {
    return `openSession(p${this.player}, ${this.fun ? 'fun' : 'real'})`;
  }
}

/** The operator deposits for a player or pays one out (transfer mode). */
export class Cashier extends Step {
  constructor(
    readonly player: number,
    readonly amount: number,
    readonly withdraw: boolean,
  ) {
    super();
  }
  check() {
    return true;
  }
  async act(model: Model, world: World) {
    if (world.wallet !== null) return [];
    const playerId = world.players[this.player]!;
    const kind = this.withdraw ? 'withdrawals' : 'deposits';
    const reference = `model-${randomUUID()}`;
    const response = await world.api
      .as('operator')
      .post(
        `/v1/wallets/${playerId}/${kind}`,
        this.withdraw
          ? { amount: this.amount, reference }
          : { amount: this.amount, currency: 'EUR', reference },
      );
    if (judge(model, `${kind} of ${this.amount} for ${playerId}`, response) === 'ok')
      world.funding.set(
        playerId,
        world.funding.get(playerId)! + (this.withdraw ? -this.amount : this.amount),
      );
    return [];
  }
  toString() {
    return `${this.withdraw ? 'withdraw' : 'deposit'}(p${this.player}, ${this.amount})`;
  }
}

/** The network to the operator's wallet: passes, slows, loses answers or is down (seamless). */
export class WalletFault extends Step {
  constructor(readonly fault: Fault | 'slow') {
    super();
  }
  check() {
    return true;
  }
  act(model: Model, world: World) {
    if (world.wallet === null) return Promise.resolve([]);
    model.fault = this.fault;
    if (this.fault === 'slow') {
      world.wallet.fault('pass');
      world.wallet.delay(SLOW_WALLET_MS);
    } else {
      world.wallet.delay(0);
      world.wallet.fault(this.fault, this.fault === 'pass' ? ['*'] : ['debit', 'rollback']);
    }
    return Promise.resolve([]);
  }
  toString() {
    return `wallet(${this.fault})`;
  }
}

/** How long a slow operator wallet takes to answer. */
export const SLOW_WALLET_MS = 150;

/** Two or three commands sent at once: where the seams between flows show. */
export class Batch extends Step {
  constructor(readonly steps: readonly Step[]) {
    super();
  }
  check(model: Readonly<Model>) {
    return this.steps.every((step) => step.check(model));
  }
  async act(model: Model, world: World) {
    const touched = await Promise.all(this.steps.map((step) => step.act(model, world)));
    return touched.flat();
  }
  toString() {
    return `batch[${this.steps.map(String).join(' | ')}]`;
  }
}

/**
 * After every command: each round it touched holds exactly the chips its players believe stand
 * (a chip accepted is there, a chip removed is gone, a refusal added none), and once dealt every
 * spot keeps the table's rules.
 */
async function checkStep(model: Model, world: World, touched: readonly string[]): Promise<void> {
  for (const roundId of new Set(touched)) {
    const round = model.rounds.get(roundId);
    if (round === undefined) continue;
    const response = await world.api.as('regulator').get<RoundView>(`/v1/rounds/${roundId}`);
    if (response.status !== 200)
      throw new Error(`reading ${roundId}: ${response.status} ${JSON.stringify(response.body)}`);
    const view = response.body;
    const standing = view.bets.filter((b) => b.status === 'active');
    const players = new Set([
      ...standing.map((b) => b.playerId),
      ...[...round.chips.values()].map((c) => c.playerId),
    ]);
    for (const playerId of players) {
      if (round.uncertain.has(playerId)) continue;
      const believed = [...round.chips.values()]
        .filter((c) => c.playerId === playerId)
        .map((c) => c.betId)
        .sort();
      const held = standing
        .filter((b) => b.playerId === playerId)
        .map((b) => b.betId)
        .sort();
      if (believed.join() !== held.join())
        throw new Error(
          `${roundId}: ${playerId} believes ${JSON.stringify(believed)} stand, the round holds ${JSON.stringify(held)}`,
        );
    }
    if (['dealing', 'dealt', 'completed'].includes(view.status)) {
      const problems = spotProblems(
        roundId,
        CONFIGS[round.target],
        standing.map((b) => ({
          playerId: b.playerId,
          type: b.type,
          amount: b.amount,
          bankerMode: (b as { bankerMode?: string | null }).bankerMode ?? null,
          seat: (b as { seat?: number | null }).seat ?? null,
        })),
      );
      if (problems.length > 0) throw new Error(problems.join('; '));
    }
  }
}

/** The arbitrary commands of a run; seamless mode adds the wallet's faults and leaves out cash. */
export function commandArbitrary(
  players: number,
  options: { seamless: boolean; steps: number; replayPath?: string },
): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, World>>> {
  const player = fc.nat(players - 1);
  const target = fc.constantFrom<Target>('live', 'land', 'scan', 'session');
  const chip = fc.record({
    type: fc.constantFrom('player' as const, 'banker' as const, 'tie' as const),
    value: fc.nat(4),
    commission: fc.boolean(),
  });
  const chips = fc.array(chip, { minLength: 1, maxLength: 3 });
  const round = (kind: RoundCommand['kind']) => fc.constant(kind);
  /**
   * The commands on one player's bets at one target, or on that target's round: a batch draws
   * two or three of them on the same target, so that they meet on one round (where the seams
   * between flows are).
   */
  const onTarget = (p: number, t: Target): fc.Arbitrary<Step> =>
    fc.oneof(
      { weight: 5, arbitrary: chips.map((c) => new Bet(p, t, c)) },
      { weight: 3, arbitrary: fc.nat(5).map((pick) => new RemoveChip(p, t, pick)) },
      { weight: 1, arbitrary: fc.constant(new Clear(p, t)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(1 as const, 2 as const).map((m) => new Rebet(p, t, m)),
      },
      {
        weight: 5,
        arbitrary: fc
          .oneof(
            { weight: 3, arbitrary: round('deal') },
            { weight: 2, arbitrary: round('void') },
            { weight: 1, arbitrary: round('close-betting') },
            { weight: 1, arbitrary: round('pause') },
            { weight: 1, arbitrary: round('resume') },
          )
          .map((kind) => new RoundCommand(kind, t, p)),
      },
      {
        weight: t === 'session' ? 0 : 3,
        arbitrary: fc.constant(new NextRound(t === 'session' ? 'live' : t)),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.tuple(chip, chip), fc.constantFrom(0, 20, 60))
          .map(([c, stagger]) => new RetriedBet(p, t, c, stagger)),
      },
    );
  const anywhere = fc.tuple(player, target).chain(([p, t]) => onTarget(p, t));
  const others: fc.Arbitrary<Step>[] = [
    fc
      .tuple(player, fc.option(fc.integer({ min: 1, max: 7 }), { freq: 3 }))
      .map(([p, seat]) => new Seat(p, seat)),
    fc.nat(3).map((d) => new DealerChange(d)),
    fc.tuple(player, fc.boolean()).map(([p, fun]) => new OpenSession(p, fun)),
    fc
      .tuple(fc.nat(5), fc.constantFrom('7S', '9D', '4C', 'KH'))
      .map(([position, card]) => new CorrectCard(position, card)),
    options.seamless
      ? fc
          .constantFrom<Fault | 'slow'>('pass', 'slow', 'slow', 'lose-answer', 'down')
          .map((fault) => new WalletFault(fault))
      : fc
          .tuple(player, fc.constantFrom(1_000, 50_000, 500_000), fc.boolean())
          .map(([p, amount, withdraw]) => new Cashier(p, amount, withdraw)),
  ];
  const one = fc.oneof(
    { weight: 30, arbitrary: anywhere },
    ...others.map((arbitrary) => ({ weight: 2, arbitrary })),
    {
      weight: 1,
      arbitrary: fc.constantFrom<TableKey>('live', 'land').map((t) => new CloseTable(t)),
    },
  );
  const batch = fc
    .tuple(player, player, target)
    .chain(([p, q, t]) =>
      fc.array(fc.oneof(onTarget(p, t), onTarget(q, t)), { minLength: 2, maxLength: 3 }),
    )
    .map((steps) => new Batch(steps));
  return fc.commands([one, one, batch], {
    maxCommands: options.steps,
    size: 'max',
    ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath }),
  });
}

/**
 * Where every run starts: a round open on each table, the players seated at the land-based table
 * (seats 1, 2, 3) and the first player in a session of their own, so that most drawn commands
 * have something to act on.
 */
export async function startRun(model: Model, world: World): Promise<void> {
  for (const table of ['live', 'land', 'scan'] as const)
    await new NextRound(table).run(model, world);
  for (const player of world.players.keys()) await new Seat(player, player + 1).run(model, world);
  await new OpenSession(0, false).run(model, world);
}

/**
 * The store as one run sees it: the streams that name the run (its tables, rounds, shoes and
 * players all carry the run's id) or one of its players' sessions.
 */
export function runStore(
  store: EventStore,
  runId: string,
  sessions: ReadonlySet<string>,
): EventStore {
  const own = (stream: string) =>
    stream.includes(runId) || [...sessions].some((sessionId) => stream.includes(sessionId));
  return {
    ...store,
    append: (stream, events, options) => store.append(stream, events, options),
    readStream: (stream, options) => store.readStream(stream, options),
    head: () => store.head(),
    subscribe: (options) => store.subscribe(options),
    verifyStream: (stream) => store.verifyStream(stream),
    close: () => store.close(),
    async readAll(options = {}) {
      // Pages of the whole log, filtered: a page of the run's own may be shorter than asked,
      // so the next is read until the log ends or the page is full.
      const selected = [];
      let after = options.after;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      for (;;) {
        const page = await store.readAll({
          ...options,
          ...(after === undefined ? {} : { after }),
          limit: 5_000,
        });
        selected.push(...page.filter((event) => own(event.stream)));
        if (page.length < 5_000 || selected.length >= limit) return selected.slice(0, limit);
        after = page.at(-1)!.position;
      }
    },
  };
}

/** Players per run. */
export const MODEL_PLAYERS = 3;
/**
 * Each player's money: 20,000.00 in Croupier's wallet, or 3,000.00 at the operator's, where two
 * 2,000.00 chips overdraw it and one does not.
 */
const DEPOSIT = 2_000_000;
const OPERATOR_BALANCE = 300_000;

/** A run's tables and players, named by a run id of its own (ADR 0031: the file's own). */
export async function newWorld(
  harness: Pick<Harness, 'api' | 'store'>,
  wallet: OperatorWalletFixture | null,
): Promise<World> {
  const run = randomUUID().slice(0, 8);
  const tables: Record<TableKey, string> = {
    live: `mdl-${run}-live`,
    land: `mdl-${run}-land`,
    scan: `mdl-${run}-scan`,
  };
  await openTable(harness.api, tables.live, 'live');
  // The operator's wallet cannot hold commission back until the dealer changes: seamless
  // land-based tables deduct it (the table refuses 'accrued' there).
  await openTable(
    harness.api,
    tables.land,
    'land-based',
    wallet === null ? {} : { commission: 'deducted' },
  );
  await openTable(harness.api, tables.scan, 'generic', { cardSource: 'scanner', burn: false });
  const players = Array.from({ length: MODEL_PLAYERS }, (_, i) => `mdl-${run}-p${i}`);
  const funding = new Map<string, number>();
  for (const player of players) {
    if (wallet === null) {
      await fund(harness.api, [player], DEPOSIT);
      funding.set(player, DEPOSIT);
    } else {
      await wallet.open(player, OPERATOR_BALANCE);
      funding.set(player, OPERATOR_BALANCE);
    }
  }
  const sessions = new Set<string>();
  return {
    api: harness.api,
    store: runStore(harness.store, run, sessions),
    sessions,
    wallet,
    players,
    tables,
    funding,
  };
}

/**
 * A fixed list of commands played as a run plays them (a named regression: a shrunk
 * counterexample written out): the start, each command and its step check, the end's checks.
 */
export async function playSteps(
  harness: Pick<Harness, 'api' | 'store'>,
  wallet: OperatorWalletFixture | null,
  steps: readonly Step[],
): Promise<void> {
  const world = await newWorld(harness, wallet);
  const model = newModel(world);
  await startRun(model, world);
  for (const step of steps) if (step.check(model)) await step.run(model, world);
  await finishRun(model, world);
}

/** A round view's status once it is at rest. */
const atRest = (status: string) => ['completed', 'voided'].includes(status);

/**
 * The end of a run: every round comes to rest (dealt where it can be, voided where not), the
 * money comes to rest, and then what must hold whatever happened: the money (every stake closed
 * exactly once, balances = the log), every dealt spot within its rules and paid on its total,
 * every round's audit, the wallets' audits, the operator's wallet (seamless) and the commission
 * owed (collectable: a dealer change collects it all, a closed table owes none).
 */
export async function finishRun(model: Model, world: World): Promise<void> {
  const { api } = world;
  world.wallet?.delay(0);
  world.wallet?.fault('pass');
  model.fault = 'pass';
  for (const round of model.rounds.values()) {
    const read = async () =>
      (await api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`)).body;
    let view = await read();
    if (atRest(view.status)) continue;
    if (view.paused) await api.as('supervisor').post(`/v1/rounds/${round.roundId}/resume`);
    if (round.target === 'scan') await dealScanned(model, world, round.roundId);
    else if (round.target === 'session') {
      const owner = model.sessions.findIndex(
        (s) => s !== null && round.roundId.startsWith(`${s.sessionId}.`),
      );
      await api
        .as('player', world.players[owner])
        .post(`/v1/sessions/${model.sessions[owner]!.sessionId}/deal`, { roundId: round.roundId });
    } else {
      await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`);
      await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`);
    }
    view = await read();
    if (process.env.MODEL_VERBOSE === '1')
      process.stderr.write(`[model] end: ${round.roundId} ${view.status}\n`);
    if (!atRest(view.status))
      await api
        .as('supervisor')
        .post(`/v1/rounds/${round.roundId}/void`, { reason: 'model: end of run' });
  }
  const problems: string[] = [];
  if (world.wallet === null) {
    // Every settlement applied, the last shift ends (a dealer change; a closed table's ended
    // with it), and its collection, which follows the change, is waited for.
    await settledEverywhere(world.store);
    problems.push(...(await seatLedgerProblems(world)));
    if (!model.tables.land.closed)
      await api
        .as('supervisor')
        .post(`/v1/tables/${world.tables.land}/dealer`, { dealerId: 'model-dealer-last' });
    problems.push(...(await commissionProblems(model, world)));
    // ...and the seat ledger says the same once the last shift's collection is through.
    problems.push(...(await seatLedgerProblems(world)));
  }
  // Play money is a wallet of its own (ADR 0030): the real money's check leaves fun rounds out,
  // and the fun wallet's audit and the spots check them.
  const funRounds = model.sessions.flatMap((s) =>
    s?.fun === true ? [`round-${s.sessionId}.`] : [],
  );
  let events: Awaited<ReturnType<typeof allEvents>>;
  if (world.wallet === null) {
    // Reactions may still land once the rounds are at rest (the collection of a commission
    // accrued after the last shift ended follows its accrual): the log and the wallets are
    // compared until they agree, and a disagreement that lasts is the finding.
    let money: string[];
    for (let attempt = 0; ; attempt++) {
      events = await settledEverywhere(world.store);
      money = await walletMoneyProblems(world, events, funRounds);
      if (money.length === 0 || attempt >= 20) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    problems.push(...money);
  } else {
    events = await allEvents(world.store);
    problems.push(...(await operatorWalletProblems(world)));
  }
  problems.push(...checkSpots(events));
  for (const roundId of model.rounds.keys()) {
    const audit = await api
      .as('regulator')
      .get<{ verdict?: { findings: unknown[] } }>(`/v1/audit/rounds/${roundId}`);
    const findings = audit.body.verdict?.findings;
    if (audit.status !== 200 || findings === undefined || findings.length > 0)
      problems.push(
        `audit of ${roundId}: ${audit.status} ${JSON.stringify(findings ?? audit.body)}`,
      );
  }
  for (const [player, session] of model.sessions.entries()) {
    if (session?.fun !== true) continue;
    const audit = await api
      .as('regulator')
      .get<{ findings?: unknown[] }>(`/v1/audit/wallets/${world.players[player]}/play-money`);
    if (audit.status !== 200 || (audit.body.findings ?? []).length > 0)
      problems.push(
        `play-money audit of ${world.players[player]}: ${audit.status} ${JSON.stringify(audit.body)}`,
      );
  }
  for (const playerId of world.players) {
    const audit = await api
      .as('regulator')
      .get<{ findings?: unknown[]; verdict?: { findings: unknown[] } }>(
        `/v1/audit/wallets/${playerId}`,
      );
    const findings = audit.body.verdict?.findings ?? audit.body.findings ?? [];
    if (audit.status === 200 && findings.length > 0)
      problems.push(`wallet audit of ${playerId}: ${JSON.stringify(findings)}`);
  }
  if (problems.length > 0) throw new Error(`the run ends wrong:\n- ${problems.join('\n- ')}`);
}

/**
 * Commission owed is collectable: once the last shift ended (the last dealer change, or the
 * table's close) no player owes any at the land-based table. Collection follows the change
 * through the log, so this waits for it, up to a deadline.
 */
async function commissionProblems(model: Model, world: World): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const problems: string[] = [];
    for (const playerId of world.players) {
      const wallet = await world.api.as('operator').get<{
        commissionOwedBySeat: { tableId: string; seat: number; amount: number }[];
      }>(`/v1/wallets/${playerId}`);
      const owed = wallet.body.commissionOwedBySeat.filter((c) => c.tableId === world.tables.land);
      if (owed.length > 0)
        problems.push(
          `${playerId}: commission ${JSON.stringify(owed)} still owed at the ${model.tables.land.closed ? 'closed ' : ''}land-based table after its last shift ended`,
        );
    }
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * 002's seat ledger (`GET /v1/tables/:id/seats`) says what the wallets say: at the land-based
 * table, each player's debt at each seat, every shift's (what a dealer change collects), is what
 * their wallet holds back for that seat. A collection may still be landing: compared until they
 * agree, up to a deadline.
 */
async function seatLedgerProblems(world: World): Promise<string[]> {
  const table = world.tables.land;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ledger = await world.api.as('supervisor').get<{
      seats: {
        seat: number;
        commission: { players: { playerId: string; atDealerChange: number }[] } | null;
      }[];
    }>(`/v1/tables/${table}/seats`);
    const shown: Record<string, number> = {};
    for (const seat of ledger.body.seats)
      for (const owing of seat.commission?.players ?? [])
        shown[`${owing.playerId} at seat ${seat.seat}`] = owing.atDealerChange;
    const held: Record<string, number> = {};
    for (const playerId of world.players) {
      const wallet = await world.api.as('operator').get<{
        commissionOwedBySeat: { tableId: string; seat: number; amount: number }[];
      }>(`/v1/wallets/${playerId}`);
      for (const owed of wallet.body.commissionOwedBySeat)
        if (owed.tableId === table) held[`${playerId} at seat ${owed.seat}`] = owed.amount;
    }
    const same =
      JSON.stringify(Object.entries(shown).sort()) === JSON.stringify(Object.entries(held).sort());
    if (same) return [];
    if (Date.now() > deadline)
      return [
        `the seat ledger of ${table} shows ${JSON.stringify(shown)}, the wallets hold back ${JSON.stringify(held)}`,
      ];
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Seamless mode: what the operator's wallet holds for each player must be what the rounds say:
 * the opening balance, less every stake that stands on a round, plus what the rounds returned
 * (payouts, refunds, adjustments). Play money never reaches it. The credits travel through an
 * outbox, so this waits for them, up to a deadline.
 */
async function operatorWalletProblems(world: World): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const events = await allEvents(world.store);
    const expected = new Map(world.funding);
    const bets = new Map<string, { playerId: string; amount: number }>();
    const returned = new Map<string, number>();
    for (const event of events) {
      const data = event.data as {
        betId?: string;
        playerId?: string;
        amount?: number;
        fun?: unknown;
        lines?: { betId: string; payout?: number; amount?: number }[];
        adjustments?: { betId: string; payout: number }[];
        betIds?: string[];
      };
      if (event.type === 'BetPlaced' && data.fun === undefined)
        bets.set(data.betId!, { playerId: data.playerId!, amount: data.amount! });
      if (event.type === 'BetsCleared') for (const id of data.betIds ?? []) bets.delete(id);
      if (event.type === 'RoundSettled')
        for (const line of data.lines ?? []) returned.set(line.betId, line.payout ?? 0);
      if (event.type === 'BetsRefunded')
        for (const line of data.lines ?? []) returned.set(line.betId, line.amount ?? 0);
      if (event.type === 'RoundResettled')
        for (const line of data.adjustments ?? []) returned.set(line.betId, line.payout);
    }
    for (const [betId, bet] of bets) {
      if (!expected.has(bet.playerId)) continue;
      expected.set(
        bet.playerId,
        expected.get(bet.playerId)! - bet.amount + (returned.get(betId) ?? 0),
      );
    }
    const problems: string[] = [];
    for (const [playerId, balance] of expected) {
      const actual = await world.wallet!.balance(playerId);
      if (actual !== balance)
        problems.push(`operator wallet of ${playerId} holds ${actual}, the rounds say ${balance}`);
    }
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The real money's check (fun rounds left out) and each wallet against the log. */
async function walletMoneyProblems(
  world: World,
  events: Awaited<ReturnType<typeof allEvents>>,
  funRounds: readonly string[],
): Promise<string[]> {
  const real = events.filter((e) => !funRounds.some((prefix) => e.stream.startsWith(prefix)));
  const money = checkMoney(real);
  const problems = [...money.discrepancies];
  for (const playerId of world.players) {
    const wallet = (
      await world.api.as('operator').get<{
        balance: number;
        available: number;
        openStakes: number;
      }>(`/v1/wallets/${playerId}`)
    ).body;
    if (wallet.balance !== (money.balances.get(playerId) ?? 0))
      problems.push(
        `${playerId}: balance ${wallet.balance}, the log says ${money.balances.get(playerId)}`,
      );
    if (wallet.openStakes !== 0) problems.push(`${playerId}: ${wallet.openStakes} in open stakes`);
    if (wallet.available < 0) problems.push(`${playerId}: available ${wallet.available}`);
  }
  return problems;
}
