import { DomainError, type RoundId, type ShoeEvent } from '@croupier/contracts';
import type { ShoeState } from '../shoe.state.js';

/** A round is being voided mid-deal: the shoe draws no more for it (ADR 0033). */
export interface SealRoundCommand {
  type: 'SealRound';
  roundId: RoundId;
}

export function decideSealRound(command: SealRoundCommand, state: ShoeState): ShoeEvent[] {
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  // A closed shoe draws for no round: its cards for the round are final already.
  if (state.status === 'closed' || state.sealed.has(command.roundId)) return [];
  return [
    {
      type: 'RoundSealed',
      data: {
        shoeId: state.shoeId,
        roundId: command.roundId,
        cards: [...(state.rounds.get(command.roundId)?.cards ?? [])],
      },
    },
  ];
}
