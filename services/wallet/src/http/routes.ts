import { DomainError, playerIdSchema, currencySchema, textSchema } from '@croupier/contracts';
import { contextOf, principalOf, requireSelfOrStaff, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { WalletService } from '../application/wallet-service.js';
import { WALLET_PROBLEMS } from './problems.js';

const walletViewSchema = z.object({
  playerId: z.string(),
  currency: z.string().nullable(),
  balance: z.number().int(),
  available: z.number().int(),
  commissionOwed: z.number().int(),
  commissionOwedBySeat: z.array(
    z.object({ tableId: z.string(), seat: z.number().int(), amount: z.number().int() }),
  ),
  openStakes: z.number().int(),
  version: z.string().nullable(),
});

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
        body: z.object({ amount: amountSchema, reference: referenceSchema }).strict(),
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
