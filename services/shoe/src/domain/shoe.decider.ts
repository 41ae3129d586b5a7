import type { ShoeEvent } from '@croupier/contracts';
import type { Decider } from '@croupier/application';
import { decideCloseShoe, type CloseShoeCommand } from './close/close.js';
import { decideCorrectCard, type CorrectCardCommand } from './corrections/corrections.js';
import { decideDrawRound, type DrawRoundCommand } from './draw/draw.js';
import {
  decideDrawScannedCard,
  decideReportCutCard,
  type DrawScannedCardCommand,
  type ReportCutCardCommand,
} from './scanned/scanned.js';
import { decideSealRound, type SealRoundCommand } from './seal/seal.js';
import {
  decideBurnScannedCard,
  decideShuffleShoe,
  type BurnScannedCardCommand,
  type ShuffleShoeCommand,
} from './shuffle/shuffle.js';
import { evolveShoe, initialShoeState, type ShoeState } from './shoe.state.js';

export { evolveShoe, initialShoeState, type ShoeRound, type ShoeState } from './shoe.state.js';

/**
 * The shoe: the ledger of every card. It is shuffled (rng: from a committed secret seed) or
 * filled by a card reader (scanner), burns per the rule, hands cards to rounds in order, notes
 * the cut card and the last round, and closes revealing the seed.
 */
export type ShoeCommand =
  | ShuffleShoeCommand
  | BurnScannedCardCommand
  | DrawRoundCommand
  | DrawScannedCardCommand
  | ReportCutCardCommand
  | SealRoundCommand
  | CorrectCardCommand
  | CloseShoeCommand;

/** One capability decides each command; they share the state and its evolve (shoe.state.ts). */
function decide(command: ShoeCommand, state: ShoeState): ShoeEvent[] {
  switch (command.type) {
    case 'ShuffleShoe':
      return decideShuffleShoe(command, state);
    case 'BurnScannedCard':
      return decideBurnScannedCard(command, state);
    case 'DrawRound':
      return decideDrawRound(command, state);
    case 'DrawScannedCard':
      return decideDrawScannedCard(command, state);
    case 'ReportCutCard':
      return decideReportCutCard(command, state);
    case 'SealRound':
      return decideSealRound(command, state);
    case 'CorrectCard':
      return decideCorrectCard(command, state);
    case 'CloseShoe':
      return decideCloseShoe(command, state);
  }
}

export const shoeDecider: Decider<ShoeCommand, ShoeEvent, ShoeState> = {
  decide,
  evolve: evolveShoe,
  initialState: initialShoeState,
};
