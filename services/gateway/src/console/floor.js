// @ts-check
/* global document, setInterval, clearInterval */
import { bandChart, hourlyBars } from './charts.js';

/**
 * The floor as a pit boss and the back office run it (issue 26): the tables with the open
 * exposure of their round in play beside the players' sessions, the figures of today, the
 * shift or a chosen period per table and session game, and the charts (GGR per hour, observed
 * RTP against its expected band). Reads only: /v1/tables, /v1/floor/* (docs/back-office.md).
 * Money is always shown in its currency (console money.js), never as raw minor units.
 */

/**
 * What the console lends this view: its page, its calls and its way of writing.
 * @typedef {object} Ui
 * @property {HTMLElement} view where the view is drawn
 * @property {(path: string) => Promise<any>} api a GET with the console's token
 * @property {(text: string, error?: boolean) => void} say the status line
 * @property {(amount: number, currency: string | null) => string} money
 * @property {(tag: string, attributes?: Record<string, string>,
 *   ...children: (Node | string | number | null | undefined)[]) => HTMLElement} el
 */

const HOUR_MS = 3_600_000;
const REFRESH_MS = 5_000;
/**
 * The bet types whose RTP is charted, in this order: the side bets' few wins stray too far on a
 * floor's figures to read against a band (the RTP report lists them).
 */
const CHARTED = ['banker', 'player', 'tie', 'banker_no_commission'];
const OUTCOMES = /** @type {const} */ (['banker', 'player', 'tie']);
const OUTCOME_NAMES = { banker: 'Banker', player: 'Player', tie: 'Tie' };

/** The refresh of the floor shown now, stopped when another view replaces it. */
let timer = /** @type {ReturnType<typeof setInterval> | null} */ (null);

/** @param {number | null} value a hold or RTP as a fraction, or a percentage when `percent` */
const percentText = (value, digits = 2, percent = false) =>
  value === null ? '—' : `${(percent ? value : value * 100).toFixed(digits)}%`;
/** @param {string | null} iso */
const clock = (iso) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');
/** The start of the hour an instant is in. @param {number} at */
const hourOf = (at) => Math.floor(at / HOUR_MS) * HOUR_MS;

/** @param {Ui} ui */
export async function showFloor(ui) {
  const { el } = ui;
  if (timer !== null) clearInterval(timer);
  const period = /** @type {HTMLSelectElement} */ (
    el(
      'select',
      { id: 'floor-period', 'aria-label': 'period' },
      el('option', { value: 'today' }, 'today (UTC)'),
      el('option', { value: 'shift' }, 'current shift'),
      el('option', { value: 'range' }, 'from … to'),
    )
  );
  const now = hourOf(Date.now());
  const from = /** @type {HTMLInputElement} */ (
    el('input', { id: 'floor-from', type: 'datetime-local', step: '3600' })
  );
  const to = /** @type {HTMLInputElement} */ (
    el('input', { id: 'floor-to', type: 'datetime-local', step: '3600' })
  );
  // datetime-local has no zone: the fields are read as UTC, as the API keeps its hours.
  from.value = new Date(now - 23 * HOUR_MS).toISOString().slice(0, 16);
  to.value = new Date(now + HOUR_MS).toISOString().slice(0, 16);
  const form = el(
    'form',
    { id: 'floor-form', class: 'floor-form' },
    el('label', {}, 'Figures for ', period),
    el('label', {}, ' from ', from),
    el('label', {}, ' to ', to),
    el('span', { class: 'meta' }, ' (UTC, whole hours) '),
    el('button', { type: 'submit' }, 'Show'),
  );
  const root = el(
    'div',
    { class: 'floor' },
    el('h2', { 'data-floor': 'floor' }, 'Floor'),
    el(
      'div',
      { class: 'floor-live' },
      el(
        'section',
        {},
        el('h3', {}, 'Tables and the open exposure of their round in play'),
        el('div', { id: 'floor-tables', class: 'floor-tables' }),
      ),
      el(
        'section',
        {},
        el('h3', { id: 'sessions-heading' }, 'Sessions'),
        el('div', { id: 'floor-sessions' }),
      ),
    ),
    el('h3', {}, 'Figures'),
    form,
    el('div', { id: 'floor-figures' }),
    el('h3', {}, 'Charts'),
    el('div', { id: 'floor-charts', class: 'floor-charts' }),
  );
  ui.view.replaceChildren(root);
  const showFigures = async () => {
    const chosen = periodOf(period.value, from.value, to.value);
    const [figures, hourly] = await Promise.all([
      ui.api(`/v1/floor/figures?${chosen.query}`),
      ui.api(
        `/v1/floor/figures/hourly?from=${encodeURIComponent(chosen.chartFrom)}&to=${encodeURIComponent(chosen.chartTo)}`,
      ),
    ]);
    drawFigures(ui, figures);
    drawCharts(ui, hourly);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    showFigures().then(
      () => ui.say('Figures shown.'),
      (error) => ui.say(error instanceof Error ? error.message : String(error), true),
    );
  });
  await Promise.all([refreshLive(ui), showFigures()]);
  timer = setInterval(() => {
    // Another view replaced this one: its refresh stops with it.
    if (!document.contains(root)) {
      if (timer !== null) clearInterval(timer);
      timer = null;
      return;
    }
    refreshLive(ui).catch((error) =>
      ui.say(`Floor: ${error instanceof Error ? error.message : error}`, true),
    );
  }, REFRESH_MS);
  ui.say('Floor: tables, exposure and sessions refresh every 5 s; figures when asked.');
}

/**
 * The figures' query and the charts' hours for a chosen period: a range charts itself; today
 * and the shift chart the last 24 hours (a shift differs per table; the bars show its hours).
 * @param {string} period @param {string} from @param {string} to
 */
function periodOf(period, from, to) {
  if (period === 'range') {
    const [start, end] = [from, to].map((value) => `${value.slice(0, 16)}:00Z`);
    return {
      query: `period=range&from=${encodeURIComponent(start)}&to=${encodeURIComponent(end)}`,
      chartFrom: start,
      chartTo: end,
    };
  }
  const end = hourOf(Date.now()) + HOUR_MS;
  return {
    query: `period=${period}`,
    chartFrom: new Date(end - 24 * HOUR_MS).toISOString(),
    chartTo: new Date(end).toISOString(),
  };
}

/** @param {Ui} ui */
async function refreshLive(ui) {
  const [tables, exposure, sessions] = await Promise.all([
    ui.api('/v1/tables'),
    ui.api('/v1/floor/exposure'),
    ui.api('/v1/floor/sessions'),
  ]);
  const exposed = new Map(exposure.tables.map((/** @type {any} */ t) => [t.tableId, t]));
  document
    .getElementById('floor-tables')
    ?.replaceChildren(
      ...(tables.length === 0 ? [ui.el('p', { class: 'meta' }, 'No table is open.')] : []),
      ...tables.map((/** @type {any} */ table) => tableView(ui, table, exposed.get(table.tableId))),
    );
  const heading = document.getElementById('sessions-heading');
  if (heading) heading.textContent = `Sessions (${sessions.sessions.length} open)`;
  document.getElementById('floor-sessions')?.replaceChildren(sessionsView(ui, sessions.sessions));
}

/** A table of the floor, and what its round in play would cost the house per outcome. */
/** @param {Ui} ui @param {any} table @param {any} exposure */
function tableView(ui, table, exposure) {
  const { el } = ui;
  const round = exposure?.round ?? null;
  const currency = exposure?.currency ?? table.currency;
  const money = (/** @type {number} */ amount) => ui.money(amount, currency);
  return el(
    'article',
    { class: `floor-table ${table.status}`, 'data-floor-table': table.tableId },
    el(
      'h4',
      {},
      el('a', { href: `#table=${table.tableId}` }, table.name || table.tableId),
      ` · ${table.preset ?? 'custom'} · ${table.dealing.mode} dealing · dealer ${table.dealerId ?? '—'}`,
    ),
    el(
      'p',
      { class: 'meta' },
      table.currentRound
        ? `round ${table.currentRound.roundId} ${table.currentRound.status}${table.currentRound.paused ? ' (paused)' : ''}`
        : 'no round yet',
      ` · ${table.roundsCompleted} round(s) completed`,
    ),
    round === null
      ? el('p', { class: 'meta', 'data-exposure': 'none' }, 'No round in play: nothing exposed.')
      : el(
          'table',
          { class: 'exposure', 'data-exposure-round': round.roundId },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              el('th', {}, `if it ends (staked ${money(round.mainStaked)})`),
              el('th', {}, 'players get back'),
              el('th', {}, 'house net'),
            ),
          ),
          el(
            'tbody',
            {},
            ...OUTCOMES.map((outcome) => {
              const { returns, houseNet } = round.outcomes[outcome];
              return el(
                'tr',
                {
                  'data-exposure': outcome,
                  'data-returns': String(returns),
                  'data-house-net': String(houseNet),
                },
                el('td', {}, OUTCOME_NAMES[outcome]),
                el('td', { class: 'num' }, money(returns)),
                el('td', { class: `num${houseNet < 0 ? ' loss' : ''}` }, money(houseNet)),
              );
            }),
            ...Object.entries(round.sideBets).map(([type, side]) =>
              el(
                'tr',
                { 'data-side-bet': type },
                el('td', {}, `${type} (side, staked ${money(side.staked)})`),
                el('td', { class: 'num' }, `at most ${money(side.largestReturn)}`),
                el('td', {}, ''),
              ),
            ),
            el(
              'tr',
              { class: 'worst', 'data-worst-case': String(round.worstCaseReturns) },
              el('td', {}, 'worst case'),
              el('td', { class: 'num' }, money(round.worstCaseReturns)),
              el('td', {}, ''),
            ),
          ),
        ),
  );
}

/** @param {Ui} ui @param {any[]} sessions */
function sessionsView(ui, sessions) {
  const { el } = ui;
  if (sessions.length === 0) return el('p', { class: 'meta' }, 'No session is open.');
  return el(
    'table',
    { class: 'floor-sessions' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['player', 'game', 'rounds', 'staked', 'returned', 'last activity', 'round in play'].map(
          (name) => el('th', {}, name),
        ),
      ),
    ),
    el(
      'tbody',
      {},
      ...sessions.map((session) =>
        el(
          'tr',
          { 'data-session': session.sessionId, 'data-player': session.playerId },
          el('td', {}, session.playerId),
          el('td', {}, `${session.game ?? '—'}${session.mode === 'fun' ? ' (fun)' : ''}`),
          el('td', { class: 'num' }, String(session.rounds)),
          el('td', { class: 'num' }, ui.money(session.staked, session.currency)),
          el('td', { class: 'num' }, ui.money(session.returned, session.currency)),
          el('td', {}, clock(session.lastActivityAt)),
          el(
            'td',
            { class: 'mono' },
            session.currentRound
              ? el(
                  'a',
                  { href: `#round=${session.currentRound.roundId}` },
                  `${session.currentRound.roundId} (${session.currentRound.status})`,
                )
              : '—',
          ),
        ),
      ),
    ),
  );
}

/** @param {Ui} ui @param {any} figures */
function drawFigures(ui, figures) {
  const { el } = ui;
  const rows = [
    ...figures.tables.map((/** @type {any} */ t) => ({ scope: 'table', id: t.tableId, ...t })),
    ...figures.games.map((/** @type {any} */ g) => ({ scope: 'game', id: g.game, ...g })),
  ];
  const when =
    figures.period === 'shift'
      ? "each open table's current dealer shift"
      : `${clock(figures.from)} to ${clock(figures.to)}`;
  const key = (/** @type {any} */ row) => `${row.scope}:${row.id}:${row.currency}`;
  const cell = (/** @type {string} */ field, /** @type {string} */ text) =>
    el('td', { class: 'num', 'data-field': field }, text);
  document.getElementById('floor-figures')?.replaceChildren(
    el('p', { class: 'meta', 'data-period': figures.period }, `Settled bets of ${when}.`),
    rows.length === 0
      ? el('p', { class: 'meta' }, 'Nothing settled in this period.')
      : el(
          'table',
          { class: 'figures' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ...[
                'table / game',
                'turnover',
                'returned',
                'commission accrued',
                'GGR',
                'hold',
                'rounds',
                'active players',
              ].map((name) => el('th', {}, name)),
            ),
          ),
          el(
            'tbody',
            {},
            ...rows.map((row) => {
              const money = (/** @type {number} */ amount) => ui.money(amount, row.currency);
              return el(
                'tr',
                { 'data-figures': key(row) },
                el(
                  'td',
                  {},
                  `${row.scope === 'game' ? 'sessions of ' : ''}${row.id}`,
                  row.shift
                    ? el(
                        'div',
                        { class: 'meta' },
                        `dealer ${row.shift.dealerId ?? '—'} since ${clock(row.shift.startedAt)}`,
                      )
                    : null,
                ),
                cell('turnover', money(row.turnover)),
                cell('returned', money(row.returned)),
                cell('accruedCommission', money(row.accruedCommission)),
                cell('ggr', money(row.ggr)),
                cell('holdPercent', percentText(row.holdPercent, 2, true)),
                cell('rounds', String(row.rounds)),
                cell('activePlayers', String(row.activePlayers)),
              );
            }),
          ),
        ),
    rows.length === 0 ? null : el('h4', {}, 'Bets by type'),
    rows.length === 0
      ? null
      : el(
          'table',
          { class: 'figures by-type' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ...['table / game', 'bet', 'bets', 'turnover', 'returned', 'GGR'].map((name) =>
                el('th', {}, name),
              ),
            ),
          ),
          el(
            'tbody',
            {},
            ...rows.flatMap((row) =>
              row.bets.map((/** @type {any} */ bet) =>
                el(
                  'tr',
                  { 'data-bets': `${key(row)}:${bet.type}` },
                  el('td', {}, row.id),
                  el('td', {}, bet.type),
                  cell('bets', String(bet.bets)),
                  cell('turnover', ui.money(bet.turnover, row.currency)),
                  cell('returned', ui.money(bet.returned, row.currency)),
                  cell('ggr', ui.money(bet.ggr, row.currency)),
                ),
              ),
            ),
          ),
        ),
  );
}

/** @param {Ui} ui @param {any} hourly */
function drawCharts(ui, hourly) {
  const { el } = ui;
  const from = Date.parse(hourly.from);
  const to = Date.parse(hourly.to);
  /** @type {Map<string, Map<number, number>>} */
  const ggr = new Map();
  for (const series of hourly.series) {
    const byHour = ggr.get(series.currency) ?? new Map();
    for (const hour of series.hours) {
      const at = Date.parse(hour.hour);
      byHour.set(at, (byHour.get(at) ?? 0) + hour.ggr);
    }
    ggr.set(series.currency, byHour);
  }
  const ggrCharts = [...ggr.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, byHour]) =>
      el(
        'figure',
        { 'data-ggr-chart': currency },
        el('figcaption', {}, `GGR per hour, ${currency}, every table and session game`),
        hourlyBars({
          from,
          to,
          bars: [...byHour.entries()].map(([at, value]) => ({ at, value })),
          label: (value) => ui.money(value, currency),
          title: `GGR per hour in ${currency}`,
        }),
      ),
    );
  const rtpCharts = hourly.series.flatMap((/** @type {any} */ series) =>
    [...series.rtp]
      .sort((a, b) => rank(a.betType) - rank(b.betType) || a.betType.localeCompare(b.betType))
      .filter((rtp) => CHARTED.includes(rtp.betType))
      .map((rtp) =>
        el(
          'figure',
          {
            'data-rtp-chart': `${series.scope}:${series.id}:${series.currency}:${rtp.betType}`,
          },
          el(
            'figcaption',
            {},
            `${rtp.betType} at ${series.scope === 'game' ? 'sessions of ' : ''}${series.id} (${series.currency}): observed RTP since ${clock(hourly.from)}, ` +
              `exact ${percentText(rtp.exactRtp)}, band: where 95% of results fall`,
          ),
          bandChart({
            from,
            to,
            expected: rtp.exactRtp,
            points: rtp.points.map((/** @type {any} */ p) => ({
              at: Date.parse(p.until),
              value: p.observedRtp,
              band: p.expected95,
            })),
            label: (value) => percentText(value, 1),
            title: `Observed RTP of ${rtp.betType} at ${series.id} against the exact one`,
            floor: 0,
          }),
        ),
      ),
  );
  document
    .getElementById('floor-charts')
    ?.replaceChildren(
      ...(ggrCharts.length === 0
        ? [el('p', { class: 'meta' }, 'Nothing settled in these hours: no chart to draw.')]
        : []),
      ...ggrCharts,
      ...rtpCharts,
    );
}

/** @param {string} betType */
const rank = (betType) => {
  const at = CHARTED.indexOf(betType);
  return at < 0 ? CHARTED.length : at;
};
