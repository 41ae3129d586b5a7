// @ts-check
/* global document, sessionStorage, fetch, location, URLSearchParams, history, atob */
import { cellsOf, ROWS } from './roads.js';

const TOKEN_KEY = 'croupier.token';
const SUITS = { C: '♣', D: '♦', H: '♥', S: '♠' };
const WINNER = { player: 'Player wins', banker: 'Banker wins', tie: 'Tie' };

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const view = byId('view');
const status = byId('status');

/**
 * Builds an element; children are nodes or text (never parsed as HTML).
 * @param {string} tag
 * @param {Record<string, string>} [attributes]
 * @param {...(Node | string | number | null | undefined)} children
 */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === 'object' ? child : String(child));
  }
  return node;
}

/** @param {string} text @param {boolean} [error] */
function say(text, error = false) {
  status.textContent = text;
  status.className = error ? 'error' : '';
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

function showTokenState() {
  const value = token();
  let who = 'no token';
  if (value) {
    try {
      const payload = JSON.parse(atob(value.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
      who = `${payload.sub} (${payload.role})`;
    } catch {
      who = 'token set';
    }
  }
  byId('token-state').textContent = who;
}

/** @param {string} path */
async function api(path) {
  const response = await fetch(path, { headers: { authorization: `Bearer ${token()}` } });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = body?.detail ?? body?.title ?? response.statusText;
    throw new Error(`${response.status} ${body?.code ?? ''}: ${detail}`);
  }
  return body;
}

// --- cards ----------------------------------------------------------------------------------

/** @param {string} card @param {number | null} [position] @param {boolean} [third] */
function cardView(card, position = null, third = false) {
  const rank = card[0] === 'T' ? '10' : card[0];
  const suit = card[1];
  const red = suit === 'D' || suit === 'H';
  return el(
    'div',
    {
      class: `card${red ? ' red' : ''}${third ? ' third' : ''}`,
      'data-card': card,
      title: position === null ? card : `${card}, shoe position ${position}`,
    },
    el('span', { class: 'rank' }, rank),
    position === null ? null : el('span', { class: 'pos' }, `#${position}`),
    el('span', { class: 'suit' }, SUITS[/** @type {'C'} */ (suit)] ?? suit),
  );
}

/** @param {'player' | 'banker'} side @param {any} audit */
function handView(side, audit) {
  const cards = audit.cards.filter((/** @type {any} */ c) => c.hand === side);
  const result = audit.result?.[side];
  const won = audit.result?.winner === side;
  return el(
    'div',
    { class: `hand ${side}${won ? ' winner' : ''}`, 'data-hand': side },
    el('h3', {}, `${side === 'player' ? 'Player' : 'Banker'}${result ? ` ${result.total}` : ''}`),
    el(
      'div',
      { class: 'cards' },
      ...cards.map((/** @type {any} */ c, /** @type {number} */ i) =>
        cardView(c.card, c.shoePosition, i === 2),
      ),
    ),
  );
}

// --- verdict --------------------------------------------------------------------------------

/** @param {any} verdict */
function verdictView(verdict) {
  const failed = verdict.findings.length;
  return el(
    'div',
    {
      class: `verdict ${verdict.ok ? 'ok' : 'failed'}`,
      'data-verdict': verdict.ok ? 'ok' : 'failed',
    },
    el(
      'div',
      { class: 'headline' },
      verdict.ok ? '✓ Verified' : `✗ Verification failed: ${failed} finding(s)`,
    ),
    el(
      'ul',
      { class: 'checks' },
      ...verdict.checks.map((/** @type {any} */ check) =>
        el(
          'li',
          { class: check.status, title: check.detail ?? check.title, 'data-check': check.check },
          check.title,
        ),
      ),
    ),
    failed === 0
      ? null
      : el(
          'ol',
          { class: 'findings' },
          ...verdict.findings.map((/** @type {any} */ f) =>
            el(
              'li',
              { 'data-code': f.code },
              el('strong', {}, `${f.code} `),
              el(
                'span',
                { class: 'mono' },
                `${f.stream ?? ''}${f.revision === null ? '' : `@${f.revision}`} `,
              ),
              f.message,
              f.expected === null && f.found === null
                ? null
                : el(
                    'div',
                    { class: 'mono' },
                    `expected ${f.expected ?? '—'}, found ${f.found ?? '—'}`,
                  ),
            ),
          ),
        ),
    verdict.notes.length === 0
      ? null
      : el(
          'ul',
          { class: 'meta' },
          ...verdict.notes.map((/** @type {string} */ n) => el('li', {}, n)),
        ),
  );
}

/** @param {string[]} header @param {(string | number | Node | null)[][]} rows */
function tableView(header, rows) {
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...header.map((h) => el('th', {}, h)))),
    el(
      'tbody',
      {},
      ...rows.map((row) =>
        el(
          'tr',
          {},
          ...row.map((cell) => el('td', typeof cell === 'number' ? { class: 'num' } : {}, cell)),
        ),
      ),
    ),
  );
}

// --- round ----------------------------------------------------------------------------------

/** @param {string} roundId */
async function showRound(roundId) {
  say(`Auditing round ${roundId}…`);
  const audit = await api(`/v1/audit/rounds/${encodeURIComponent(roundId)}`);
  const winner = audit.result ? WINNER[/** @type {'tie'} */ (audit.result.winner)] : audit.status;
  view.replaceChildren(
    el('h2', { 'data-round': audit.roundId }, `Round ${audit.roundId}: ${winner}`),
    el(
      'p',
      { class: 'meta' },
      `table ${audit.tableId ?? '?'} · shoe ${audit.shoeId ?? '?'} · round ${audit.number ?? '?'} · ${audit.cardSource ?? ''} · ${audit.currency ?? ''} · status ${audit.status}${audit.paused ? ' (paused)' : ''} · paytable `,
      el('span', { class: 'mono' }, audit.paytableId ?? '—'),
    ),
    verdictView(audit.verdict),
    el('div', { class: 'hands' }, handView('player', audit), handView('banker', audit)),
    audit.thirdCards.length === 0
      ? null
      : el(
          'ul',
          { class: 'third-cards' },
          // A natural stops both hands for one reason: say it once.
          ...[...new Set(audit.thirdCards.map((/** @type {any} */ d) => d.reason))].map((reason) =>
            el('li', {}, reason),
          ),
        ),
    el('h3', {}, 'Bets and payouts'),
    tableView(
      [
        'player',
        'bet',
        'stake',
        'status',
        'result',
        'payout',
        'recomputed',
        'commission',
        'refund',
        'final',
        'final recomputed',
      ],
      audit.bets.map((/** @type {any} */ b) => [
        b.playerId,
        `${b.type}${b.bankerMode ? ` (${b.bankerMode})` : ''}${b.seat === null ? '' : ` seat ${b.seat}`}`,
        b.amount,
        b.status,
        b.settlement?.result ?? '—',
        b.settlement?.payout ?? '—',
        b.expected?.payout ?? '—',
        b.settlement?.commission ?? '—',
        b.refund ? `${b.refund.amount} (${b.refund.reason})` : '—',
        // What a resettlement (void or corrected result after settlement) pays it in the end.
        b.final ? `${b.final.payout} (${b.final.result})` : '—',
        b.final ? `${b.final.expected.payout} (${b.final.expected.result})` : '—',
      ]),
    ),
    el('h3', {}, 'Wallet movements'),
    audit.wallet === null
      ? el('p', { class: 'meta' }, 'not read')
      : tableView(
          ['wallet', 'event', 'amount', 'detail', 'bet', 'at'],
          audit.wallet.map((/** @type {any} */ m) => [
            `${m.stream}@${m.revision}`,
            m.type,
            m.amount,
            m.detail ?? '',
            m.betId.slice(0, 8),
            m.occurredAt ?? '',
          ]),
        ),
    el('h3', {}, 'Event timeline'),
    tableView(
      ['when', 'who', 'stream', 'event', 'what'],
      audit.trail.map((/** @type {any} */ t) => [
        t.occurredAt ?? t.recordedAt,
        t.actor ? `${t.actor.id} (${t.actor.role})` : '—',
        `${t.stream}@${t.revision}`,
        t.type,
        t.what,
      ]),
    ),
  );
  say(`Round ${roundId}: ${audit.verdict.ok ? 'verified' : 'verification failed'}.`);
}

// --- shoe -----------------------------------------------------------------------------------

/** @param {string} shoeId */
async function showShoe(shoeId) {
  say(`Replaying shoe ${shoeId}…`);
  const replay = await api(`/v1/audit/shoes/${encodeURIComponent(shoeId)}/replay`);
  const roundLink = (/** @type {string} */ roundId) => {
    const link = el('a', { href: `#round=${roundId}` }, roundId);
    return link;
  };
  view.replaceChildren(
    el('h2', { 'data-shoe': replay.shoeId }, `Shoe ${replay.shoeId} (${replay.status})`),
    el(
      'p',
      { class: 'meta' },
      `${replay.decks ?? '?'} deck(s) · ${replay.cardSource ?? '?'} · ${replay.roundsDealt} round(s) dealt · ${replay.cardsUsed} card(s) used` +
        (replay.burn
          ? ` · burn: ${replay.burn.shown ?? '?'} shown, ${replay.burn.cards} burned`
          : '') +
        (replay.cutCard?.lastRoundNumber
          ? ` · cut card in round ${replay.cutCard.roundNumber}, last round ${replay.cutCard.lastRoundNumber}`
          : ''),
    ),
    el(
      'p',
      { class: 'meta' },
      'commitment ',
      el('span', { class: 'mono' }, replay.commitment ?? '—'),
      ' · seed ',
      el('span', { class: 'mono' }, replay.seed ?? '(sealed)'),
      ' · digest ',
      el('span', { class: 'mono' }, replay.digest?.value ?? '—'),
    ),
    verdictView(replay.verdict),
    el('h3', {}, 'Rounds'),
    tableView(
      ['round', 'status', 'Player', 'Banker', 'result', 'bets', 'staked', 'paid out', 'verdict'],
      replay.rounds.map((/** @type {any} */ r) => [
        roundLink(r.roundId),
        r.status,
        el('div', { class: 'cards' }, ...r.player.map((/** @type {string} */ c) => cardView(c))),
        el('div', { class: 'cards' }, ...r.banker.map((/** @type {string} */ c) => cardView(c))),
        r.winner ?? '—',
        r.bets,
        r.staked,
        r.paidOut,
        r.ok ? '✓' : `✗ ${r.findings}`,
      ]),
    ),
  );
  say(`Shoe ${shoeId}: ${replay.verdict.ok ? 'verified' : 'verification failed'}.`);
}

// --- roads ----------------------------------------------------------------------------------

/**
 * @param {string} kind
 * @param {{ column: number, row: number, value: string }[]} cells
 * @param {(cell: any) => Node[]} [extra]
 */
function roadView(kind, cells, extra = () => []) {
  const columns = Math.max(12, ...cells.map((c) => c.column + 1));
  const grid = el('div', { class: `road ${kind}`, 'data-road': kind });
  const at = new Map(cells.map((c) => [`${c.column},${c.row}`, c]));
  for (let column = 0; column < columns; column++) {
    for (let row = 0; row < ROWS; row++) {
      const cell = at.get(`${column},${row}`);
      grid.append(
        el(
          'div',
          { class: 'cell' },
          cell
            ? el(
                'span',
                { class: `mark ${cell.value}`, 'data-mark': cell.value },
                kind === 'bead' ? cell.value : '',
              )
            : null,
          ...(cell ? extra(cell) : []),
        ),
      );
    }
  }
  return grid;
}

/** @param {string} tableId */
async function showRoads(tableId) {
  say(`Loading the roads of ${tableId}…`);
  const roads = await api(`/v1/tables/${encodeURIComponent(tableId)}/roads`);
  // The API draws the big road (dragon tails included): each cell with its ties.
  const big = roads.bigRoad.cells.map((/** @type {any} */ c) => ({ ...c, value: c.result }));
  const tieMarks = (/** @type {any} */ cell) =>
    cell.ties > 0
      ? [
          el('span', { class: 'tie-line' }),
          cell.ties > 1 ? el('span', { class: 'tie-count' }, cell.ties) : null,
        ].filter((n) => n !== null)
      : [];
  // Pair marks as rules.md draws them: a Banker pair top-left, a Player pair bottom-right.
  const pairMarks = (/** @type {any} */ cell) =>
    [
      cell.bankerPair ? el('span', { class: 'pair banker', title: 'Banker pair' }) : null,
      cell.playerPair ? el('span', { class: 'pair player', title: 'Player pair' }) : null,
    ].filter((n) => n !== null);
  const bead = roads.beadCells.map((/** @type {any} */ c) => ({ ...c, value: c.result }));
  const ROAD_NAMES = {
    bigEyeBoy: 'big eye boy',
    smallRoad: 'small road',
    cockroachPig: 'cockroach pig',
  };
  const ask = (/** @type {'banker' | 'player'} */ side) => {
    const preview = roads.ask[side];
    return el(
      'span',
      { 'data-ask': side },
      `if ${side === 'banker' ? 'Banker' : 'Player'} next: `,
      ...Object.entries(ROAD_NAMES).map(([road, name]) =>
        el(
          'span',
          { class: 'ask-road' },
          `${name} `,
          preview[road] === null
            ? '–'
            : el('span', {
                class: `ask-mark ${preview[road]}`,
                title: preview[road] === 'R' ? 'red' : 'blue',
              }),
        ),
      ),
    );
  };
  view.replaceChildren(
    el('h2', { 'data-table': tableId }, `Table ${tableId}: roads of the current shoe`),
    el(
      'div',
      { class: 'roads' },
      el('h3', {}, `Bead plate (${roads.beadPlate.length} rounds)`),
      roadView('bead', bead, pairMarks),
      el('h3', {}, 'Big road'),
      roadView('big', big, (cell) => [...tieMarks(cell), ...pairMarks(cell)]),
      el('h3', {}, 'Big eye boy'),
      roadView('eye', cellsOf(roads.grids.bigEyeBoy)),
      el('h3', {}, 'Small road'),
      roadView('small', cellsOf(roads.grids.smallRoad)),
      el('h3', {}, 'Cockroach pig'),
      roadView('roach', cellsOf(roads.grids.cockroachPig)),
      el('p', { class: 'ask' }, 'Ask — ', ask('banker')),
      el('p', { class: 'ask' }, 'Ask — ', ask('player')),
    ),
  );
  say(`Table ${tableId}: ${roads.beadPlate.length} round(s) in the current shoe.`);
}

// --- wiring ---------------------------------------------------------------------------------

/** @param {() => Promise<void>} work */
async function run(work) {
  if (!token()) {
    say('Enter a token first (an operator, supervisor or regulator JWT).', true);
    return;
  }
  try {
    await work();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), true);
  }
}

/** @param {string} formId @param {string} inputId @param {string} key @param {(id: string) => Promise<void>} show */
function finder(formId, inputId, key, show) {
  byId(formId).addEventListener('submit', (event) => {
    event.preventDefault();
    const value = /** @type {HTMLInputElement} */ (byId(inputId)).value.trim();
    if (!value) return;
    history.replaceState(null, '', `#${key}=${encodeURIComponent(value)}`);
    void run(() => show(value));
  });
}

byId('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId('token'));
  const value = input.value.trim();
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  input.value = '';
  showTokenState();
});
byId('forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenState();
});
finder('round-form', 'round-id', 'round', showRound);
finder('shoe-form', 'shoe-id', 'shoe', showShoe);
finder('table-form', 'table-id', 'table', showRoads);

function fromLocation() {
  const params = new URLSearchParams(location.hash.slice(1));
  const round = params.get('round');
  const shoe = params.get('shoe');
  const table = params.get('table');
  if (round) void run(() => showRound(round));
  else if (shoe) void run(() => showShoe(shoe));
  else if (table) void run(() => showRoads(table));
}
globalThis.addEventListener('hashchange', fromLocation);
showTokenState();
fromLocation();
