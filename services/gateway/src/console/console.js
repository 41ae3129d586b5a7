// @ts-check
/* global document, sessionStorage, fetch, location, URLSearchParams, history, atob, setInterval, clearInterval, setTimeout, AbortController, TextDecoderStream */
import { cellsOf, ROWS } from './roads.js';
import { openTableForm, seatLedgerView, tableActionsOf } from './actions.js';
import { showFloor } from './floor.js';
// MINOR_UNIT_EXPONENTS is appended to money.js as it is served (console-routes.ts).
import { formatMoney, MINOR_UNIT_EXPONENTS } from './money.js';

const TOKEN_KEY = 'croupier.token';
const SUITS = { C: '♣', D: '♦', H: '♥', S: '♠' };
const WINNER = { player: 'Player wins', banker: 'Banker wins', tie: 'Tie' };

/**
 * An amount of minor units in its currency, as a person reads it ("20,000.00 EUR").
 * @param {number} amount @param {string | null} currency
 */
const money = (amount, currency) => formatMoney(amount, currency, MINOR_UNIT_EXPONENTS);

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
  const inCurrency = (/** @type {number} */ amount) => money(amount, audit.currency);
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
        inCurrency(b.amount),
        b.status,
        b.settlement?.result ?? '—',
        b.settlement ? inCurrency(b.settlement.payout) : '—',
        b.expected ? inCurrency(b.expected.payout) : '—',
        b.settlement ? inCurrency(b.settlement.commission) : '—',
        b.refund ? `${inCurrency(b.refund.amount)} (${b.refund.reason})` : '—',
        // What a resettlement (void or corrected result after settlement) pays it in the end.
        b.final ? `${inCurrency(b.final.payout)} (${b.final.result})` : '—',
        b.final ? `${inCurrency(b.final.expected.payout)} (${b.final.expected.result})` : '—',
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
            money(m.amount, audit.currency),
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
        money(r.staked, r.currency),
        money(r.paidOut, r.currency),
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
  // A table with numbered seats (002): what each seat owes.
  const ledger = await seatLedgerView(kit, tableId);
  if (ledger !== null) view.append(ledger);
  say(`Table ${tableId}: ${roads.beadPlate.length} round(s) in the current shoe.`);
}

// --- the pit: live tables, paused rounds, significant events --------------------------------

/** The role of the token in use, as it says (the API checks it). */
function tokenRole() {
  try {
    return JSON.parse(atob(token().split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))).role;
  } catch {
    return null;
  }
}

/** @param {string} path @param {string} method @param {unknown} [body] */
async function command(path, method, body) {
  const headers = /** @type {Record<string, string>} */ ({ authorization: `Bearer ${token()}` });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = answer?.detail ?? answer?.title ?? response.statusText;
    throw new Error(`${response.status} ${answer?.code ?? ''}: ${detail}`);
  }
  return answer;
}

/** A stream's place in the other views: a round's audit, a shoe's replay, a table's roads. */
/** @param {string | null} stream */
function streamLink(stream) {
  if (!stream) return null;
  const [kind, ...rest] = stream.split('-');
  const id = rest.join('-');
  if (kind === 'round') return el('a', { href: `#round=${id}` }, id);
  if (kind === 'shoe') return el('a', { href: `#shoe=${id}` }, id);
  if (kind === 'table') return el('a', { href: `#table=${id}` }, id);
  return el('span', { class: 'mono' }, stream);
}

/** @param {string | null} iso */
const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '—');

/** What the pit view holds while it is shown; replaced when it is shown again. */
const pit = {
  /** Bumped whenever the pit is left: work started for an older one stops. */
  generation: 0,
  /** @type {AbortController | null} */ feed: null,
  /** @type {ReturnType<typeof setInterval> | null} */ timer: null,
  /** @type {any[]} */ paused: [],
  /** @type {any[]} */ events: [],
  /** @type {Map<string, { completed: number, beads: string[] }>} */ roads: new Map(),
};

/** What the staff actions (actions.js) are handed from here. */
const kit = {
  el,
  button,
  say,
  api,
  command,
  run,
  money,
  role: tokenRole,
  refresh: refreshTables,
};

function leavePit() {
  pit.generation++;
  pit.feed?.abort();
  pit.feed = null;
  if (pit.timer !== null) clearInterval(pit.timer);
  pit.timer = null;
}

/** @param {any} round */
function pausedRoundView(round) {
  const supervisor = tokenRole() === 'supervisor';
  const reason = el('input', {
    class: 'void-reason',
    placeholder: 'why it is cancelled',
    'aria-label': `reason to void ${round.roundId}`,
  });
  const act = (/** @type {string} */ what, /** @type {() => Promise<void>} */ work) =>
    void run(async () => {
      say(`${what} ${round.roundId}…`);
      await work();
      say(`${what} ${round.roundId}: done.`);
      await refreshTables();
    });
  return el(
    'li',
    { class: 'paused-round', 'data-paused-round': round.roundId },
    el('strong', {}, `Table ${round.tableId} · `),
    el('a', { href: `#round=${round.roundId}` }, round.roundId),
    ` (${round.status}, ${round.cards} card(s)) paused at ${clock(round.pausedAt)}: `,
    el('em', {}, round.reason ?? 'no reason'),
    round.voidsAt ? ` · voided with refunds at ${clock(round.voidsAt)} unless resumed` : '',
    supervisor
      ? el(
          'span',
          { class: 'actions' },
          button('Resume', 'resume', () =>
            act('Resuming', () => command(`/v1/rounds/${round.roundId}/resume`, 'POST')),
          ),
          reason,
          button('Void and refund', 'void', () =>
            act('Voiding', () =>
              command(`/v1/rounds/${round.roundId}/void`, 'POST', {
                reason:
                  /** @type {HTMLInputElement} */ (reason).value.trim() ||
                  'cancelled by the supervisor from the console',
              }),
            ),
          ),
        )
      : el('span', { class: 'meta' }, ' · a supervisor resumes or voids it'),
  );
}

/** @param {string} label @param {string} action @param {() => void} onClick */
function button(label, action, onClick) {
  const node = el('button', { type: 'button', 'data-action': action }, label);
  node.addEventListener('click', onClick);
  return node;
}

function drawPaused() {
  const list = document.getElementById('paused-rounds');
  if (!list) return;
  list.replaceChildren(
    ...(pit.paused.length === 0
      ? [el('li', { class: 'meta' }, 'No round is paused.')]
      : pit.paused.map(pausedRoundView)),
  );
  const heading = document.getElementById('paused-heading');
  if (heading) {
    heading.textContent = `Paused rounds (${pit.paused.length})`;
    heading.className = pit.paused.length > 0 ? 'alert' : '';
  }
}

/** @param {any} event */
function eventView(event) {
  return el(
    'li',
    { class: `significant ${event.category}`, 'data-category': event.category },
    el('span', { class: 'when' }, clock(event.occurredAt)),
    el('span', { class: 'category' }, event.category),
    event.tableId ? el('span', { class: 'table' }, event.tableId) : null,
    el('span', { class: 'what' }, event.summary),
    el('span', { class: 'who' }, event.actor ? `${event.actor.id} (${event.actor.role})` : ''),
    streamLink(event.stream),
  );
}

function drawEvents() {
  const list = document.getElementById('significant-events');
  if (!list) return;
  list.replaceChildren(...pit.events.slice(0, 100).map(eventView));
}

/** @param {any} table */
function tableCard(table) {
  const round = table.currentRound;
  const paused = round?.paused === true;
  const beads = pit.roads.get(table.tableId)?.beads ?? [];
  return el(
    'article',
    {
      class: `table-card ${table.status}${paused ? ' paused' : ''}`,
      'data-table-card': table.tableId,
    },
    el(
      'h3',
      {},
      el('a', { href: `#table=${table.tableId}` }, table.name || table.tableId),
      el('span', { class: `badge ${table.status}` }, table.status),
      paused ? el('span', { class: 'badge paused' }, 'PAUSED') : null,
    ),
    el(
      'p',
      { class: 'meta' },
      `${table.tableId} · ${table.preset ?? 'custom'} · ${table.dealing.mode} dealing · dealer ${table.dealerId ?? '—'} · ${table.roundsCompleted} round(s) completed`,
    ),
    el(
      'p',
      { class: 'current' },
      round
        ? el(
            'span',
            { 'data-round-status': round.status },
            'Round ',
            el('a', { href: `#round=${round.roundId}` }, round.roundId),
            ` · ${round.status}${paused ? ' · paused' : ''}`,
          )
        : 'No round yet',
      table.currentShoeId
        ? el(
            'span',
            {},
            ' · shoe ',
            el('a', { href: `#shoe=${table.currentShoeId}` }, table.currentShoeId),
          )
        : null,
    ),
    el(
      'div',
      { class: 'mini-bead', 'data-mini-road': table.tableId, title: 'bead plate of the shoe' },
      ...beads.map((/** @type {string} */ mark) =>
        el('span', { class: `mark ${mark}`, 'data-mark': mark }, mark),
      ),
    ),
    tableActionsOf(kit, table),
  );
}

async function refreshTables() {
  const grid = document.getElementById('live-tables');
  if (!grid) return;
  const tables = await api('/v1/tables');
  // The roads of a table are read again only when it completed another round.
  for (const table of tables) {
    const known = pit.roads.get(table.tableId);
    if (known?.completed === table.roundsCompleted) continue;
    const roads = await api(`/v1/tables/${encodeURIComponent(table.tableId)}/roads`);
    pit.roads.set(table.tableId, { completed: table.roundsCompleted, beads: roads.beadPlate });
  }
  grid.replaceChildren(
    ...(tables.length === 0 ? [el('p', { class: 'meta' }, 'No table is open.')] : []),
    ...tables.map(tableCard),
  );
}

/** Reads the supervision feed (server-sent events over fetch, so the token stays a header). */
async function followFeed(/** @type {AbortSignal} */ signal) {
  let lastId = /** @type {string | null} */ (null);
  while (!signal.aborted) {
    try {
      const headers = /** @type {Record<string, string>} */ ({
        authorization: `Bearer ${token()}`,
        accept: 'text/event-stream',
      });
      if (lastId !== null) headers['last-event-id'] = lastId;
      const response = await fetch('/v1/supervision/feed', { headers, signal });
      if (!response.ok || response.body === null) {
        const answer = await response.json().catch(() => null);
        say(`Live feed: ${response.status} ${answer?.code ?? ''}`, true);
        return;
      }
      byId('feed-state').textContent = 'live';
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          /** @type {Record<string, string>} */
          const fields = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
          if (fields.id) lastId = fields.id;
          if (fields.event === 'paused-rounds') {
            pit.paused = JSON.parse(fields.data).rounds;
            drawPaused();
            void refreshTables().catch(() => undefined);
          } else if (fields.event === 'significant') {
            pit.events.unshift(JSON.parse(fields.data));
            drawEvents();
          } else if (fields.event === 'token-expired') {
            // The feed ends with the token: a fresh one reconnects after the last id seen.
            say('Live feed: the token expired; sign in with a fresh one to follow it again', true);
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      say(`Live feed interrupted: ${error instanceof Error ? error.message : error}`, true);
    }
    if (!signal.aborted) {
      byId('feed-state').textContent = 'reconnecting…';
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

async function showPit() {
  leavePit();
  const generation = pit.generation;
  pit.events = [];
  pit.paused = [];
  view.replaceChildren(
    el(
      'h2',
      { 'data-pit': 'live' },
      'Live view ',
      el('small', { id: 'feed-state' }, 'connecting…'),
    ),
    openTableForm(kit),
    el('h3', { id: 'paused-heading' }, 'Paused rounds'),
    el('ul', { id: 'paused-rounds', class: 'paused-rounds' }),
    el('h3', {}, 'Tables'),
    el('div', { id: 'live-tables', class: 'live-tables' }),
    el('h3', {}, 'Significant events'),
    el('ol', { id: 'significant-events', class: 'significant-events' }),
  );
  drawPaused();
  await refreshTables();
  if (generation !== pit.generation) return; // another view was asked for meanwhile
  const feed = new AbortController();
  pit.feed = feed;
  pit.timer = setInterval(() => void refreshTables().catch(() => undefined), 3000);
  void followFeed(feed.signal);
  say('Live: tables refresh every 3 s; pauses and significant events as they happen.');
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
    leavePit();
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
  // Signed in with nothing else asked for: what a pit boss needs first.
  if (!location.hash || location.hash === '#pit') void run(showPit);
  else if (location.hash === '#floor') void run(floorView);
});
byId('forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  leavePit();
  showTokenState();
});
finder('round-form', 'round-id', 'round', showRound);
finder('shoe-form', 'shoe-id', 'shoe', showShoe);
finder('table-form', 'table-id', 'table', showRoads);

/** The floor view (floor.js) draws with the console's own page, calls and money. */
const floorView = () => showFloor({ view, api, say, money, el });

function fromLocation() {
  const params = new URLSearchParams(location.hash.slice(1));
  const round = params.get('round');
  const shoe = params.get('shoe');
  const table = params.get('table');
  const floor = params.has('floor');
  if (round || shoe || table || floor) leavePit();
  if (round) void run(() => showRound(round));
  else if (shoe) void run(() => showShoe(shoe));
  else if (table) void run(() => showRoads(table));
  else if (floor) void run(floorView);
  else if (token()) void run(showPit);
}
globalThis.addEventListener('hashchange', fromLocation);
showTokenState();
fromLocation();
