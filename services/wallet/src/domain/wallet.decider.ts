import type { WalletEvent } from '@croupier/contracts';
import type { Decider } from '@croupier/application';
import { decideCollectCommission, type CollectCommissionCommand } from './commission/commission.js';
import {
  decideDeposit,
  decideWithdraw,
  type DepositCommand,
  type WithdrawCommand,
} from './funds/funds.js';
import { decideGrantPlayMoney, type GrantPlayMoneyCommand } from './play-money/play-money.js';
import {
  decideAdjustPayout,
  decideCreditPayout,
  decideDebitStakes,
  decideRefundStake,
  type AdjustPayoutCommand,
  type CreditPayoutCommand,
  type DebitStakesCommand,
  type RefundStakeCommand,
} from './stakes/stakes.js';
import { evolveWallet, initialWalletState, type WalletState } from './wallet.state.js';

export {
  available,
  evolveWallet,
  initialWalletState,
  shiftKey,
  type OpenStake,
  type WalletState,
} from './wallet.state.js';

/**
 * A player's wallet. Its balance is the sum of its events. A stake debited for a bet stays
 * "open" until exactly one payout (possibly 0) or refund closes it; commission owed on an
 * accrued-commission table is held back from what the player can spend until it is collected.
 */
export type WalletCommand =
  | DepositCommand
  | WithdrawCommand
  | GrantPlayMoneyCommand
  | DebitStakesCommand
  | CreditPayoutCommand
  | RefundStakeCommand
  | AdjustPayoutCommand
  | CollectCommissionCommand;

/** One capability decides each command; they share the state and its evolve (wallet.state.ts). */
function decide(command: WalletCommand, state: WalletState): WalletEvent[] {
  switch (command.type) {
    case 'Deposit':
      return decideDeposit(command, state);
    case 'Withdraw':
      return decideWithdraw(command, state);
    case 'GrantPlayMoney':
      return decideGrantPlayMoney(command, state);
    case 'DebitStakes':
      return decideDebitStakes(command, state);
    case 'CreditPayout':
      return decideCreditPayout(command, state);
    case 'RefundStake':
      return decideRefundStake(command, state);
    case 'AdjustPayout':
      return decideAdjustPayout(command, state);
    case 'CollectCommission':
      return decideCollectCommission(command, state);
  }
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  decide,
  evolve: evolveWallet,
  initialState: initialWalletState,
};
