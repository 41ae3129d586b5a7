import type { CommandHandler, Parking, ProjectionRunner } from '@croupier/application';
import { moneyHolder, type OperatorWalletPort } from '@croupier/contracts';
import type { EventStore, ProjectionStorage } from '@croupier/eventstore';
import type { BalanceLimits } from './application/balance-limits.js';
import type { WalletMode } from './application/wallet-mode.js';
import { WalletService } from './application/wallet-service.js';
import type { WalletAdapters } from './plugin.js';
import { OperatorCallLedger } from './seamless/operator-call-ledger.js';
import { SeamlessMode, type OperatorWalletSettings } from './seamless/seamless-mode.js';

/**
 * Picks the wallet of a process, once, where the process is composed: the one place a process
 * reads WALLET_MODE (ADR 0037). Transfer: Croupier's own wallet is the rounds' port. Seamless
 * (ADR 0026): the operator's wallet is, and its owed calls become a read model of `readModels`,
 * so this runs before they start; so does the ledger of every call (ADR 0039), in either mode.
 * Play money stays in Croupier's wallet either way.
 */
export function walletAdapters(
  settings: OperatorWalletSettings & {
    readonly WALLET_MODE: WalletMode;
    readonly WALLET_MAX_BALANCE: BalanceLimits;
  },
  deps: {
    readonly commands: CommandHandler;
    readonly store: EventStore;
    readonly readModels: ProjectionRunner;
    readonly storage: ProjectionStorage;
    readonly parking: Parking;
    readonly logger: { warn(details: object, message: string): void };
    /** The operator's wallet, instead of HTTP to OPERATOR_WALLET_URL (tests). */
    readonly operator?: OperatorWalletPort;
  },
): WalletAdapters {
  const money = moneyHolder(settings.WALLET_MODE);
  const wallets = new WalletService(deps.commands, {
    maxBalance: settings.WALLET_MAX_BALANCE,
    money,
  });
  const seamless =
    settings.WALLET_MODE === 'seamless'
      ? new SeamlessMode({
          settings,
          store: deps.store,
          commands: deps.commands,
          readModels: deps.readModels,
          storage: deps.storage,
          logger: deps.logger,
          playMoney: wallets,
          parking: deps.parking,
          ...(deps.operator === undefined ? {} : { operator: deps.operator }),
        })
      : null;
  const operatorCalls = deps.readModels.register(new OperatorCallLedger(deps.storage));
  return { money, wallets, seamless, bets: seamless?.bets ?? wallets, operatorCalls };
}
