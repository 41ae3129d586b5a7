import { shuffleCommitment } from '@croupier/baccarat';
import {
  DomainError,
  type DigestEntry,
  type ShoeCloseReason,
  type ShoeEvent,
} from '@croupier/contracts';
import type { ShoeState } from '../shoe.state.js';

/** Closing a shoe: only when it is finished, revealing the seed its commitment was made to. */
export interface CloseShoeCommand {
  type: 'CloseShoe';
  reason: ShoeCloseReason;
  seed: string | null;
  digest: { streams: DigestEntry[]; value: string };
}

export function decideCloseShoe(command: CloseShoeCommand, state: ShoeState): ShoeEvent[] {
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  if (state.status === 'closed') return [];
  if (
    command.reason === 'completed' &&
    state.shufflePolicy === 'shoe' &&
    state.lastRoundNumber === null
  ) {
    throw new DomainError(
      'SHOE_NOT_FINISHED',
      `shoe ${state.shoeId}: the cut card has not come out`,
    );
  }
  // Exhausted is a fact of the ledger, not a claim: every card of the shoe is out.
  if (command.reason === 'exhausted' && state.position < state.decks * 52) {
    throw new DomainError(
      'SHOE_NOT_FINISHED',
      `shoe ${state.shoeId} still holds ${state.decks * 52 - state.position} cards`,
    );
  }
  if (state.commitment !== null) {
    if (
      command.seed === null ||
      shuffleCommitment(Buffer.from(command.seed, 'hex'), {
        shoeId: state.shoeId,
        decks: state.decks,
      }) !== state.commitment
    ) {
      throw new DomainError(
        'SEED_MISMATCH',
        `the revealed seed does not match shoe ${state.shoeId}'s commitment`,
      );
    }
  }
  return [
    {
      type: 'ShoeClosed',
      data: {
        shoeId: state.shoeId,
        reason: command.reason,
        roundsDealt: state.lastRoundDrawn,
        seed: state.commitment === null ? null : command.seed,
        digest: { algorithm: 'sha256/jcs', ...command.digest },
      },
    },
  ];
}
