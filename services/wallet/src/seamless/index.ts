export * from './operator-wallet.decider.js';
export * from './seamless-wallet.js';
export * from './operator-wallet-feed.js';
export * from './operator-wallet-outbox.js';
export * from './http-operator-wallet.js';
export * from './settings.js';
export * from './seamless-mode.js';
export * from './operator-call-ledger.js';
