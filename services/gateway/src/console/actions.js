// @ts-check
/* global fetch */

/**
 * What staff do at the tables from the console, and what 002's seats owe: the live view's table
 * actions by role (docs/security.md's matrix: a button shows only where the API would take it),
 * the form that opens a table from a preset, and the seat ledger of a table. Every action is the
 * API's own command; what it refuses is shown by its problem detail and changes nothing.
 *
 * console.js hands in what it already has (`Kit`), so this module builds nothing twice.
 *
 * @typedef {object} Kit
 * @property {(tag: string, attributes?: Record<string, string>, ...children: (Node | string | number | null | undefined)[]) => HTMLElement} el
 * @property {(label: string, action: string, onClick: () => void) => HTMLElement} button
 * @property {(text: string, error?: boolean) => void} say
 * @property {(path: string) => Promise<any>} api
 * @property {(path: string, method: string, body?: unknown) => Promise<any>} command
 * @property {(work: () => Promise<void>) => Promise<void>} run
 * @property {(amount: number, currency: string | null) => string} money
 * @property {() => string | null} role
 * @property {() => Promise<void>} refresh
 */

/** Who may take each action (docs/security.md), as the routes' `roles` say. */
const MAY = {
  'open-table': ['operator'],
  'close-table': ['operator'],
  'change-dealer': ['supervisor', 'operator'],
  'start-shoe': ['dealer', 'supervisor'],
  'close-shoe': ['supervisor', 'operator'],
};

/** @param {keyof typeof MAY} action @param {string | null} role */
const may = (action, role) => role !== null && MAY[action].includes(role);

/** @param {HTMLElement} node */
const valueOf = (node) => /** @type {HTMLInputElement} */ (node).value.trim();

/**
 * Runs a command, says how it went, and redraws the tables.
 * @param {Kit} kit @param {string} what @param {() => Promise<unknown>} work
 */
function act(kit, what, work) {
  void kit.run(async () => {
    kit.say(`${what}…`);
    await work();
    kit.say(`${what}: done.`);
    await kit.refresh();
  });
}

// --- opening a table ------------------------------------------------------------------------

/** The presets POST /v1/tables takes, read from the API's own OpenAPI document. */
async function presetNames() {
  try {
    const response = await fetch('/docs/json');
    const document = await response.json();
    const body = document.paths['/v1/tables'].post.requestBody.content['application/json'].schema;
    return /** @type {string[]} */ (body.properties.preset.enum);
  } catch {
    return [];
  }
}

/**
 * The operator's form that opens a table from a preset (null for other roles).
 * @param {Kit} kit
 */
export function openTableForm(kit) {
  if (!may('open-table', kit.role())) return null;
  const { el } = kit;
  const tableId = el('input', {
    id: 'open-table-id',
    placeholder: 'salon-2',
    spellcheck: 'false',
    'aria-label': 'id of the table to open',
  });
  const preset = el('select', { id: 'open-table-preset', 'aria-label': 'preset' });
  void presetNames().then((names) => {
    const chosen = valueOf(preset);
    preset.replaceChildren(...names.map((name) => el('option', { value: name }, name)));
    if (names.includes(chosen)) /** @type {HTMLSelectElement} */ (preset).value = chosen;
  });
  const dealing = el(
    'select',
    { id: 'open-table-dealing', 'aria-label': 'dealing' },
    el('option', { value: 'manual' }, 'dealt by a dealer'),
    el('option', { value: 'auto' }, 'dealt by itself (rng)'),
  );
  const form = el(
    'form',
    { id: 'open-table', class: 'staff-actions', autocomplete: 'off' },
    el('strong', {}, 'Open a table '),
    tableId,
    ' from ',
    preset,
    dealing,
    el('button', { type: 'submit', 'data-action': 'open-table' }, 'Open table'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = valueOf(tableId);
    const mode = valueOf(dealing);
    act(kit, `Opening table ${id}`, () =>
      kit.command('/v1/tables', 'POST', {
        tableId: id,
        preset: valueOf(preset),
        dealing: { mode, bettingWindowMs: 15_000 },
      }),
    );
  });
  return form;
}

// --- a table's actions ----------------------------------------------------------------------

/**
 * Each table's actions, kept across the live view's redraws (every 3 s), so a dealer id or a
 * reason being typed is not lost: the card takes the same node each time.
 * Keyed by role and table.
 * @type {Map<string, { node: HTMLElement, update: (table: any) => void }>}
 */
const tableActions = new Map();

/**
 * The actions the token's role may take at a table, or null when none.
 * @param {Kit} kit @param {any} table a table as GET /v1/tables lists it
 */
export function tableActionsOf(kit, table) {
  const role = kit.role();
  // Another token may have another role: its own nodes.
  const key = `${role}/${table.tableId}`;
  const known = tableActions.get(key);
  if (known !== undefined) {
    known.update(table);
    return known.node;
  }
  const shown = /** @type {(keyof typeof MAY)[]} */ ([
    'change-dealer',
    'start-shoe',
    'close-shoe',
    'close-table',
  ]).filter((action) => may(action, role));
  if (shown.length === 0) return null;
  const { el, button, command } = kit;
  const path = `/v1/tables/${encodeURIComponent(table.tableId)}`;
  const node = el('div', { class: 'table-actions', 'data-table-actions': table.tableId });
  const parts = /** @type {Record<string, HTMLElement>} */ ({});
  if (shown.includes('change-dealer')) {
    const dealer = el('input', {
      class: 'dealer-id',
      placeholder: 'next dealer',
      spellcheck: 'false',
      'aria-label': `next dealer at ${table.tableId}`,
    });
    parts['change-dealer'] = el(
      'span',
      {},
      dealer,
      button('Change dealer', 'change-dealer', () =>
        act(kit, `Changing the dealer at ${table.tableId}`, async () => {
          await command(`${path}/dealer`, 'POST', { dealerId: valueOf(dealer) });
          /** @type {HTMLInputElement} */ (dealer).value = '';
        }),
      ),
    );
  }
  if (shown.includes('start-shoe'))
    parts['start-shoe'] = button('Start next shoe', 'start-shoe', () =>
      act(kit, `Starting the next shoe at ${table.tableId}`, () =>
        command(`${path}/shoes`, 'POST'),
      ),
    );
  if (shown.includes('close-shoe'))
    parts['close-shoe'] = button('Close shoe early', 'close-shoe', () =>
      act(kit, `Closing the current shoe at ${table.tableId}`, () =>
        command(`${path}/shoes/current/close`, 'POST'),
      ),
    );
  if (shown.includes('close-table')) {
    const reason = el('input', {
      class: 'close-reason',
      placeholder: 'why it closes',
      'aria-label': `reason to close ${table.tableId}`,
    });
    parts['close-table'] = el(
      'span',
      {},
      reason,
      button('Close table', 'close-table', () =>
        act(kit, `Closing table ${table.tableId}`, () =>
          command(`${path}/close`, 'POST', {
            reason: valueOf(reason) || 'closed by the operator from the console',
          }),
        ),
      ),
    );
  }
  node.append(...Object.values(parts));
  /** A closed table takes no more commands; a shoe is closed only while there is one. */
  const update = (/** @type {any} */ current) => {
    const open = current.status === 'open';
    for (const [action, part] of Object.entries(parts)) {
      const hidden = !open || (action === 'close-shoe' && current.currentShoeId === null);
      part.hidden = hidden;
    }
    node.hidden = !open;
  };
  update(table);
  tableActions.set(key, { node, update });
  return node;
}

// --- 002's seat ledger ----------------------------------------------------------------------

/**
 * A seated table's ledger (002): what each seat owes in accrued commission this dealer shift and
 * what a dealer change collects, per player, and the table's totals, from GET /v1/tables/:id/seats.
 * Null for a table without numbered seats.
 * @param {Kit} kit @param {string} tableId
 */
export async function seatLedgerView(kit, tableId) {
  const { el, money } = kit;
  const ledger = await kit.api(`/v1/tables/${encodeURIComponent(tableId)}/seats`);
  if (ledger.seats.length === 0) return null;
  const currency = ledger.currency;
  const owed = (/** @type {number} */ amount) => money(amount, currency);
  const rows = ledger.seats.map((/** @type {any} */ seat) => {
    const debt = seat.commission;
    const owing =
      debt === null || debt.players.length === 0
        ? '—'
        : debt.players
            .map(
              (/** @type {any} */ p) =>
                `${p.playerId} ${owed(p.shift)} (${owed(p.atDealerChange)} at the change)`,
            )
            .join('; ');
    return el(
      'tr',
      { 'data-seat': String(seat.seat) },
      el('td', {}, String(seat.seat)),
      el('td', {}, seat.playerId ?? (seat.taken ? 'taken' : 'free')),
      el('td', { class: 'num', 'data-owed': 'shift' }, debt === null ? '—' : owed(debt.shift)),
      el(
        'td',
        { class: 'num', 'data-owed': 'at-change' },
        debt === null ? '—' : owed(debt.atDealerChange),
      ),
      el('td', {}, owing),
    );
  });
  const totals = ledger.commission;
  return el(
    'section',
    { class: 'seat-ledger', 'data-seat-ledger': tableId },
    el('h3', {}, 'Seats and the commission they owe (002)'),
    totals === null
      ? null
      : el(
          'p',
          { class: 'meta', 'data-ledger-totals': '' },
          `dealer ${totals.dealerId ?? '—'} · shift `,
          el('span', { class: 'mono' }, totals.shiftId ?? '—'),
          ' · owed this shift ',
          el('strong', { 'data-total': 'shift' }, owed(totals.shift)),
          ' · a dealer change collects ',
          el('strong', { 'data-total': 'at-change' }, owed(totals.atDealerChange)),
        ),
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['seat', 'player', 'owed this shift', 'a dealer change collects', 'owed by'].map((h) =>
            el('th', {}, h),
          ),
        ),
      ),
      el('tbody', {}, ...rows),
    ),
  );
}
