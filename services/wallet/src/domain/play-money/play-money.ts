import { PLAY_MONEY_CURRENCY, type PlayerId, type WalletEvent } from '@croupier/contracts';
import { requirePositive, requireSameMoney } from '../wallet.rules.js';
import { available, type WalletState } from '../wallet.state.js';

/**
 * Fun mode (ADR 0030): tops a fun wallet up to `topUpTo` play money, if it holds less. Play
 * money enters a fun wallet this way only, and a real wallet never.
 */
export interface GrantPlayMoneyCommand {
  type: 'GrantPlayMoney';
  playerId: PlayerId;
  topUpTo: number;
}

const grantsOf = (state: WalletState): number =>
  [...state.references.keys()].filter((key) => key.startsWith('grant:')).length;

export function decideGrantPlayMoney(
  command: GrantPlayMoneyCommand,
  state: WalletState,
): WalletEvent[] {
  requirePositive(command.topUpTo, 'a fun balance');
  requireSameMoney(state, PLAY_MONEY_CURRENCY, 'a play-money grant');
  const amount = command.topUpTo - available(state);
  if (amount <= 0) return [];
  return [
    {
      type: 'PlayMoneyGranted',
      data: {
        playerId: command.playerId,
        amount,
        currency: PLAY_MONEY_CURRENCY,
        topUpTo: command.topUpTo,
        grant: grantsOf(state) + 1,
        fun: true,
      },
    },
  ];
}
