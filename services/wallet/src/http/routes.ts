import { DomainError, playerIdSchema, currencySchema, textSchema } from '@croupier/contracts';
import { contextOf, principalOf, requireSelfOrStaff, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { WalletService } from '../application/wallet-service.js';
import { WALLET_PROBLEMS } from './problems.js';

/** What a wallet answers (GET, and every deposit and withdrawal): described in the OpenAPI too. */
const walletViewSchema = z
  .object({
    playerId: z.string().describe("Whose wallet: the player's id, their token's `sub`."),
    currency: z
      .string()
      .nullable()
      .describe(
        'The one currency the wallet holds (ISO 4217; FUN for a fun wallet), named by its first deposit; null for none yet.',
      ),
    balance: z
      .number()
      .int()
      .describe(
        'The balance in minor units of `currency`: deposits, payouts, refunds and adjustments in; withdrawals, stakes and commission collected out. Open stakes are already out of it. Below zero only after an adjustment took back more than the player held.',
      ),
    available: z
      .number()
      .int()
      .describe(
        'What the player can stake or the operator withdraw: `balance` less `commissionOwed`.',
      ),
    commissionOwed: z
      .number()
      .int()
      .describe(
        'Commission accrued at seated tables (002) and not yet collected: taken from the balance when the dealer shift ends.',
      ),
    commissionOwedBySeat: z
      .array(
        z.object({
          tableId: z.string(),
          seat: z.number().int(),
          amount: z.number().int().describe('Commission owed at this seat, minor units.'),
        }),
      )
      .describe('`commissionOwed` by table and seat.'),
    openStakes: z
      .number()
      .int()
      .describe(
        'How many stakes are debited and not yet closed by a payout or a refund (a count, not an amount).',
      ),
    version: z
      .string()
      .nullable()
      .describe(
        "The wallet stream's revision (decimal string; also the ETag): for a real wallet, the `sequence` of its latest settlement message is this + 1. Null for no wallet.",
      ),
  })
  .describe("A player's wallet in Croupier (transfer mode; fun wallets too).");

const params = z.object({ playerId: playerIdSchema });
const amountSchema = z
  .number()
  .int('must be a whole number of minor units')
  .positive('must be positive')
  .max(Number.MAX_SAFE_INTEGER);
const referenceSchema = textSchema({ max: 128 });

export interface WalletRoutesDeps {
  readonly wallets: WalletService;
  /** What a fun wallet is topped up to (FUN_BALANCE), play money in minor units. */
  readonly funBalance: number;
}

/** Wallets: balances are projections of the wallet stream; money moves only by events. */
export function walletRoutes(app: HttpApp, deps: WalletRoutesDeps): void {
  const { wallets } = deps;
  funWalletRoutes(app, deps);

  app.post(
    '/v1/wallets/:playerId/deposits',
    {
      config: { roles: ['operator'], problems: WALLET_PROBLEMS.deposit },
      schema: {
        tags: ['wallets'],
        summary: 'Deposit funds; the reference makes a retried deposit count once',
        params,
        body: z
          .object({ amount: amountSchema, currency: currencySchema, reference: referenceSchema })
          .strict(),
        response: { 201: walletViewSchema },
      },
    },
    async (request, reply) => {
      const view = await wallets.deposit(
        { playerId: request.params.playerId, ...request.body },
        contextOf(request),
      );
      return reply.status(201).send(view);
    },
  );

  app.post(
    '/v1/wallets/:playerId/withdrawals',
    {
      config: { roles: ['operator'], problems: WALLET_PROBLEMS.withdraw },
      schema: {
        tags: ['wallets'],
        summary: 'Withdraw funds (never more than is available)',
        params,
        body: z
          .object({
            amount: amountSchema.describe(
              "Minor units of the wallet's currency to take out: at most `available`.",
            ),
            reference: referenceSchema.describe(
              "The operator's reference (1-128 characters): a retry with the same reference and amount counts once; the same reference with another amount is 409 ID_CONFLICT.",
            ),
          })
          .strict()
          .describe(
            'No currency: a withdrawal is always of real money, in the currency the wallet holds.',
          ),
        response: { 201: walletViewSchema },
      },
    },
    async (request, reply) => {
      const view = await wallets.withdraw(
        { playerId: request.params.playerId, ...request.body },
        contextOf(request),
      );
      return reply.status(201).send(view);
    },
  );

  app.get(
    '/v1/wallets/:playerId',
    {
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: WALLET_PROBLEMS.getWallet,
      },
      schema: {
        tags: ['wallets'],
        summary: 'Balance, available balance, commission owed',
        params,
        response: { 200: walletViewSchema },
      },
    },
    async (request, reply) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      const view = await wallets.getWallet(request.params.playerId);
      if (view.version === null)
        throw new DomainError('WALLET_NOT_FOUND', `no wallet for ${request.params.playerId}`);
      return reply.header('etag', `"${view.version}"`).send(view);
    },
  );

  app.get(
    '/v1/wallets/:playerId/transactions',
    {
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: WALLET_PROBLEMS.transactions,
      },
      schema: {
        tags: ['wallets'],
        summary: 'Movements, newest first, with the balance after each',
        params,
        querystring: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
      },
    },
    async (request) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      return wallets.transactions(request.params.playerId, request.query.limit);
    },
  );
}

/**
 * A player's fun wallet (ADR 0030): play money (`FUN`) for fun sessions, in a wallet of its own.
 * Topped up by a grant, never deposited to or withdrawn from, never published to downstream
 * wallet systems.
 */
function funWalletRoutes(app: HttpApp, deps: WalletRoutesDeps): void {
  const { wallets, funBalance } = deps;

  app.post(
    '/v1/wallets/:playerId/play-money',
    {
      config: { roles: ['player', 'operator'], problems: WALLET_PROBLEMS.grantPlayMoney },
      schema: {
        tags: ['wallets'],
        summary:
          'Fun mode: top your fun wallet up to the fun balance (FUN_BALANCE) of play money (FUN); a wallet holding that much already is left as it is',
        params,
        response: { 200: walletViewSchema },
      },
    },
    async (request) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      return wallets.grantPlayMoney(
        { playerId: request.params.playerId, topUpTo: funBalance },
        contextOf(request),
      );
    },
  );

  app.get(
    '/v1/wallets/:playerId/play-money',
    {
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: WALLET_PROBLEMS.getWallet,
      },
      schema: {
        tags: ['wallets'],
        summary: 'Fun mode: the fun wallet, play money (FUN) only',
        params,
        response: { 200: walletViewSchema },
      },
    },
    async (request, reply) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      const view = await wallets.getWallet(request.params.playerId, 'fun');
      if (view.version === null)
        throw new DomainError(
          'WALLET_NOT_FOUND',
          `no fun wallet for ${request.params.playerId}: top it up first (POST /v1/wallets/${request.params.playerId}/play-money)`,
        );
      return reply.header('etag', `"${view.version}"`).send(view);
    },
  );

  app.get(
    '/v1/wallets/:playerId/play-money/transactions',
    {
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: WALLET_PROBLEMS.transactions,
      },
      schema: {
        tags: ['wallets'],
        summary: "Fun mode: the fun wallet's movements, newest first, with the balance after each",
        params,
        querystring: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
      },
    },
    async (request) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      return wallets.transactions(request.params.playerId, request.query.limit, 'fun');
    },
  );
}
