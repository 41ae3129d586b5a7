export { Books, type Answer, type CallState } from './books.js';
export {
  buildWalletServer,
  requestSchemas,
  WALLET_ROUTES,
  type WalletServerOptions,
} from './server.js';
export { signatureOf, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';
