import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { BetInput } from './play.js';

/** A player's bet request, sent over a connection of the player's own. */
export interface OwnConnectionBet {
  /** http://host:port of whatever serves the round's bets. */
  readonly origin: string;
  readonly roundId: string;
  /** The player's bearer token. */
  readonly token: string;
  readonly bets: readonly BetInput[];
}

function betRequest({ roundId, token, bets }: OwnConnectionBet) {
  const body = JSON.stringify({ bets });
  return {
    path: `/v1/rounds/${roundId}/bets`,
    body,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'keep-alive',
    },
  };
}

/**
 * Places bets over a keep-alive connection of the player's own, so that only the player's
 * hang-up closes it, and destroys the socket as soon as the answer's status line has arrived,
 * without reading the body. Resolves with the status once the socket is closed.
 */
export function betThenHangUp(bet: OwnConnectionBet): Promise<number> {
  const { path, body, headers } = betRequest(bet);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve, reject) => {
    const sent = request(`${bet.origin}${path}`, { method: 'POST', agent, headers }, (answer) => {
      // The body is abandoned with the socket: its "aborted" error is the point, not a fault.
      answer.on('error', () => undefined);
      answer.socket.once('close', () => {
        agent.destroy();
        resolve(answer.statusCode ?? 0);
      });
      answer.socket.destroy();
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Writes a whole bet request on a raw TCP socket and destroys the socket the moment the request
 * has been handed to the network, before any of the answer is read. Resolves once it is closed.
 */
export function betAndHangUpUnanswered(bet: OwnConnectionBet): Promise<void> {
  const { path, body, headers } = betRequest(bet);
  const url = new URL(bet.origin);
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: ${url.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(head + body, (error) => {
        if (error) reject(error);
        socket.destroy();
      });
    });
    socket.once('error', reject);
    socket.once('close', () => {
      resolve();
    });
  });
}
