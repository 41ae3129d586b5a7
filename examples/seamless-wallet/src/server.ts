import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Answer, Books } from './books.js';
import { SIGNATURE_HEADER, signatureProblem, TIMESTAMP_HEADER } from './signature.js';

export interface WalletServerOptions {
  readonly books: Books;
  /** The secret shared with Croupier (its OPERATOR_WALLET_SECRET). */
  readonly secret: string;
  /** How far a request's timestamp may be from this clock. Default 5 minutes. */
  readonly toleranceMs?: number;
  /** Bearer token of the cashier routes (`/admin/…`); without it they are not served. */
  readonly adminToken?: string;
  readonly now?: () => number;
  readonly logger?: boolean;
}

const key = z.uuid();
const playerId = z.string().min(1).max(64);
const movement = {
  key,
  playerId,
  roundId: z.string().min(1).max(100),
  betId: z.uuid(),
  currency: z.string().regex(/^[A-Z]{3}$/),
};
/** The request bodies, as docs/wallet-api.openapi.json publishes them. */
export const requestSchemas = {
  debit: z.strictObject({ ...movement, amount: z.number().int().positive() }),
  credit: z.strictObject({
    ...movement,
    amount: z.number().int(),
    kind: z.enum(['settlement', 'adjustment']),
  }),
  rollback: z.strictObject({ ...movement, amount: z.number().int().positive(), debitKey: key }),
  status: z.strictObject({ key }),
};

/** The routes Croupier calls, by the name of the call. */
export const WALLET_ROUTES = {
  debit: '/wallet/v1/debit',
  credit: '/wallet/v1/credit',
  rollback: '/wallet/v1/rollback',
  status: '/wallet/v1/status',
} as const;

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

/**
 * The operator's wallet as Croupier's seamless mode calls it: four signed JSON routes, each
 * call applied once by its idempotency key. Built in a factory; `listen` is the caller's.
 */
export async function buildWalletServer(options: WalletServerOptions): Promise<FastifyInstance> {
  const { books, secret } = options;
  const now = options.now ?? Date.now;
  const toleranceMs = options.toleranceMs ?? 300_000;
  const app = fastify({ logger: options.logger ?? false });
  // The signature is over the raw body: keep it as received, then parse.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, body === '' ? {} : JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('the body is not JSON'), { statusCode: 400 }), undefined);
    }
  });

  const signed = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const problem = signatureProblem(
      secret,
      {
        timestamp: request.headers[TIMESTAMP_HEADER] as string | undefined,
        signature: request.headers[SIGNATURE_HEADER] as string | undefined,
      },
      request.rawBody ?? '',
      now(),
      toleranceMs,
    );
    if (problem === null) return true;
    void reply.code(401).send({ code: 'SIGNATURE_INVALID', detail: problem });
    return false;
  };

  const call = <S extends z.ZodType>(
    path: string,
    schema: S,
    run: (body: z.infer<S>) => Promise<unknown>,
  ) => {
    app.post(path, async (request, reply) => {
      if (!signed(request, reply)) return reply;
      const parsed = schema.safeParse(request.body);
      if (!parsed.success)
        return reply.code(400).send({ code: 'VALIDATION_ERROR', detail: parsed.error.message });
      const answer = await run(parsed.data);
      if (isRefusal(answer))
        return reply.code(answer.code === 'KEY_CONFLICT' ? 409 : 422).send(answer);
      return answer;
    });
  };
  call(WALLET_ROUTES.debit, requestSchemas.debit, (body) => books.debit(body));
  call(WALLET_ROUTES.credit, requestSchemas.credit, (body) => books.credit(body));
  call(WALLET_ROUTES.rollback, requestSchemas.rollback, (body) => books.rollback(body));
  call(WALLET_ROUTES.status, requestSchemas.status, (body) => books.status(body.key));

  if (options.adminToken !== undefined) {
    const admin = `Bearer ${options.adminToken}`;
    app.addHook('onRequest', async (request, reply) => {
      if (request.url.startsWith('/admin/') && request.headers.authorization !== admin)
        return reply
          .code(401)
          .send({ code: 'UNAUTHENTICATED', detail: 'the admin token is required' });
    });
    app.put('/admin/players/:playerId', async (request) => {
      const { playerId: id } = z.object({ playerId }).parse(request.params);
      const body = z
        .object({ currency: z.string().regex(/^[A-Z]{3}$/), balance: z.number().int() })
        .parse(request.body);
      await books.setBalance(id, body.currency, body.balance);
      return { playerId: id, ...body };
    });
    app.get('/admin/players/:playerId', async (request, reply) => {
      const { playerId: id } = z.object({ playerId }).parse(request.params);
      const account = await books.balanceOf(id);
      if (account === null) return reply.code(404).send({ code: 'PLAYER_UNKNOWN', detail: id });
      return { playerId: id, ...account };
    });
  }
  return app;
}

const isRefusal = (answer: unknown): answer is Extract<Answer, { status: 'refused' }> =>
  (answer as { status?: unknown }).status === 'refused';
