import type { CommandContext } from '@croupier/contracts';
import type { RoundState } from '@croupier/round';
import type { System } from '../../src/index.js';

/** Polls `read` until `done` holds: a bound on attempts, never on time. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 2_000; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the condition never held');
}

/**
 * Plays a fun session, betting Player, until its player wins, their fun wallet topped up to the
 * largest exact balance before each round (as an unbounded FUN_BALANCE allowed, issue 24): that
 * win's payout overflows the wallet, which refuses it BALANCE_LIMIT.
 */
export async function playUntilFunWin(
  system: System,
  sessionId: string,
  player: CommandContext,
  stake: number,
): Promise<RoundState> {
  const playerId = player.actor.id;
  for (let played = 0; played < 200; played++) {
    // Full again before each round (a lost stake made room): a win then overflows it.
    await system.wallets.grantPlayMoney({ playerId, topUpTo: Number.MAX_SAFE_INTEGER }, player);
    const { round } = await system.rounds.sessionRound(sessionId, player);
    await system.rounds.placeBets(
      round.roundId,
      playerId,
      [{ type: 'player', amount: stake }],
      player,
    );
    await system.rounds.dealAsPlayer(round.roundId, playerId, 0, player);
    const settled = await until(
      () => system.rounds.getRound(round.roundId),
      (state) => state.settlementId !== null,
    );
    if (settled.settledLines.some((line) => line.payout > line.stake)) return settled;
    // A push's payout applied after the next top-up would overflow the wallet too: the wallet
    // closes this round's stake before the next round tops it up (the bus may deliver late).
    await until(
      () => system.wallets.getWallet(playerId, 'fun'),
      (wallet) => wallet.openStakes === 0,
    );
  }
  throw new Error(`${playerId} never won a round`);
}
