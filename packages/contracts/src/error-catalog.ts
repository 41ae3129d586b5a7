import type { ErrorCode } from './errors.js';

/** What a stable error code tells a client, and a `detail` the API really answers it with. */
export interface ErrorCodeDescription {
  /** What went wrong and what the client can do about it. */
  readonly meaning: string;
  /** A `detail` as the API words it (ids and numbers are examples). */
  readonly example: string;
}

const descriptions = {
  VALIDATION_ERROR: {
    meaning:
      'The request does not fit its schema: a path, query or body field is missing, mistyped or out of range (an amount past 2^53 - 1), a field or query parameter is unknown, a text holds control characters or a lone surrogate, or the body is not JSON. `errors` names each field.',
    example: 'body.bets.0.amount: Invalid input: expected number, received string',
  },
  UNAUTHENTICATED: {
    meaning:
      'No bearer token, or one that is expired, badly signed, not issued by Croupier, without a role, without `exp`, living longer than its role may (`TOKEN_MAX_LIFETIME`), issued in the future, or whose `sub` is not 1-64 letters, digits or `_ . @ -`. Get a new token.',
    example: 'send a bearer token: Authorization: Bearer <JWT>',
  },
  FORBIDDEN: {
    meaning:
      "The token's role may not call this operation, or a player acted on another player's wallet, bets or history.",
    example: 'the player role may not POST /v1/tables',
  },
  TABLE_NOT_FOUND: {
    meaning: 'No table has this id.',
    example: 'no table "baccarat-9"',
  },
  SHOE_NOT_FOUND: {
    meaning: 'No shoe has this id, or the table has no shoe yet.',
    example: 'no shoe "baccarat-1.3"',
  },
  ROUND_NOT_FOUND: {
    meaning: 'No round has this id.',
    example: 'no round "baccarat-1.3.12"',
  },
  WALLET_NOT_FOUND: {
    meaning:
      "Transfer mode: the player has no wallet in Croupier yet (nothing was ever deposited; for play money, the fun wallet was never topped up), so there is nothing to read, stake or withdraw. Seamless mode: the operator's wallet answered a stake's debit `PLAYER_UNKNOWN`: it knows no player by this id (the token's `sub`), and the bet is refused with nothing debited; and `GET /v1/wallets/:playerId` answers it, Croupier's wallet holding none of their real money.",
    example: 'the wallet has no funds yet: deposit first',
  },
  CHECKPOINT_NOT_FOUND: {
    meaning:
      'The notary has recorded no checkpoint with this sequence number (or none yet: the first is recorded one CHECKPOINT_INTERVAL_MS after the first event).',
    example: 'no checkpoint 12: the last is 9',
  },
  PARKED_MESSAGE_NOT_FOUND: {
    meaning:
      'No consumer ever parked a message with this id (`<consumer>.<messageId>`, as GET /v1/admin/parked-messages lists them).',
    example: 'no parked message wallet-ledger.3f1c…: nothing was parked under that id',
  },
  NOT_FOUND: {
    meaning: 'No route answers this method and path.',
    example: 'no route GET /v1/tabels',
  },
  ALREADY_EXISTS: {
    meaning: 'Something with this id exists already (a table, shoe or round).',
    example: 'table baccarat-1 exists',
  },
  DUPLICATE_BET: {
    meaning:
      'The same bet (same bet id, player and stake) was placed before: the first one stands, nothing was debited twice.',
    example:
      'betId 6f1c0b7e-2a44-4c1e-9f51-0c2d5a8b7e10 is already placed on round baccarat-1.3.12',
  },
  ID_CONFLICT: {
    meaning:
      'An id given with the command (a bet id, a deposit or withdrawal reference) already names a different record: a bet id used before, on another round, with another amount or by another player, or a reference of another amount. Nothing moved. Use a new id.',
    example:
      'reference "dep-0042" already records a deposit of 5000, not 7000; a new deposit needs a new reference',
  },
  CONCURRENCY_CONFLICT: {
    meaning:
      'The resource kept changing while the command was decided, through every retry. Nothing was changed: send it again.',
    example:
      'round-baccarat-1.3.12 kept changing while this command was decided (10 attempts); try again',
  },
  TABLE_CLOSED: {
    meaning: 'The table is closed: it opens no new round and takes no new dealer.',
    example: 'table baccarat-1 is closed',
  },
  ROUND_IN_PROGRESS: {
    meaning: 'The table still plays or settles a round: finish it before opening the next.',
    example: 'round baccarat-1.3.12 is still being played',
  },
  ROUND_NOT_OPEN: {
    meaning: 'The round is not open. Reserved: no operation answers it today.',
    example: 'round baccarat-1.3.12 is not open',
  },
  BETTING_CLOSED: {
    meaning: 'Betting on the round is closed: no bet can be placed, repeated or cleared.',
    example: 'betting on round baccarat-1.3.12 is closed',
  },
  ROUND_PAUSED: {
    meaning: 'The round is paused: a supervisor resumes or voids it first.',
    example: 'round baccarat-1.3.12 is paused',
  },
  ROUND_NOT_PAUSED: {
    meaning: 'Only a paused round can be resumed.',
    example: 'round baccarat-1.3.12 is not paused',
  },
  ROUND_FINISHED: {
    meaning: 'The round is settled or voided: nothing more can happen to it.',
    example: 'round baccarat-1.3.12 is settled',
  },
  DEAL_IN_PROGRESS: {
    meaning:
      "The round's deal started while the void was decided: the shoe may have drawn cards for it, so the round is voided only with the cards the shoe sealed for it. Retry the void.",
    example: 'the deal of round baccarat-1.3.12 is under way: seal it at the shoe before voiding',
  },
  ROUND_NOT_DEALING: {
    meaning:
      'The round is not in the dealing phase the command needs: close betting before dealing, deal every card before confirming.',
    example: 'close betting before dealing',
  },
  SHOE_CLOSED: {
    meaning: 'The shoe is closed: it deals no more cards.',
    example: 'shoe baccarat-1.3 is closed',
  },
  SHOE_FINISHED: {
    meaning: 'The cut card is out or the shoe ran out of cards: the next round needs a new shoe.',
    example: "the cut card is out: round 71 was the shoe's last",
  },
  SHOE_NOT_FINISHED: {
    meaning: 'The shoe cannot close as completed: its cut card has not come out.',
    example: 'shoe baccarat-1.3: the cut card has not come out',
  },
  WRONG_CARD_SOURCE: {
    meaning:
      'The command is for the other kind of table: rng tables deal their own cards, scanner tables post each card their reader scans.',
    example: 'an rng table deals its own cards',
  },
  HELD_BY_OPERATOR_WALLET: {
    meaning:
      "The deployment runs in seamless mode (WALLET_MODE=seamless): the operator's own wallet holds every player's balance, and Croupier debits and credits it directly. Croupier's wallet holds no money, so nothing can be deposited into or withdrawn from it: move the money in the operator's wallet.",
    example:
      "deposits are refused in seamless mode: the operator's wallet holds the players' money",
  },
  NOT_PARKED: {
    meaning:
      'The message is not parked any more: it was applied after all, so there is nothing to retry. (A retry already asked for and not yet tried is not refused: asking again changes nothing.)',
    example: 'wallet-ledger.3f1c… is not parked: it was applied after a retry',
  },
  INSUFFICIENT_FUNDS: {
    meaning:
      "Transfer mode: the wallet's available balance (its balance less the commission it owes; stakes already debited are out of the balance) does not cover the stakes or the withdrawal. Seamless mode: the operator's wallet refused a stake's debit with `INSUFFICIENT_FUNDS` (Croupier holds no balance to check). Either way every bet of the request is refused and the player keeps their money: in transfer mode nothing is debited, in seamless mode a stake of the request the wallet already debited is rolled back.",
    example: 'cannot withdraw 90.00 EUR: 45.00 EUR available',
  },
  BALANCE_LIMIT: {
    meaning:
      "The movement would take the wallet's balance past its limit: the operator's maximum balance for the currency (WALLET_MAX_BALANCE), or what minor units hold exactly.",
    example:
      'a deposit of 5000 would take the balance of 99999999999000 past the limit of 100000000000000 EUR',
  },
  CURRENCY_MISMATCH: {
    meaning:
      "The amount's currency is not the wallet's (a wallet holds one currency). In seamless mode: the operator's wallet refused the stake with its `CURRENCY_MISMATCH`.",
    example: 'this wallet holds EUR, not USD',
  },
  OPERATOR_WALLET_REFUSED: {
    meaning:
      "Seamless mode: the operator's wallet refused the stake with a code of its own (a limit, a locked account, ...), named in the message and in the problem's `walletCode`. Nothing was debited; ask the operator. The codes the API names have their own: INSUFFICIENT_FUNDS, CURRENCY_MISMATCH, WALLET_NOT_FOUND (docs/wallet-integration.md).",
    example: "the operator's wallet refused the stake: SELF_EXCLUDED",
  },
  UNKNOWN_BET: {
    meaning: 'No such bet type.',
    example: 'unknown bet type "tiger"',
  },
  BET_NOT_OFFERED: {
    meaning: 'The bet type exists but this table does not offer it.',
    example: 'this table does not offer "lucky_six"',
  },
  BET_PAST_MAX_ROUND: {
    meaning: 'The bet is offered only in the first rounds of a shoe, and this round is later.',
    example: '"player_pair" is offered up to round 50 of a shoe; this is round 51',
  },
  INVALID_AMOUNT: {
    meaning: 'An amount is not a positive whole number of minor units.',
    example: 'amount must be a positive integer number of minor units, got 12.5',
  },
  BET_BELOW_MIN: {
    meaning:
      "The player's total on a spot (bet type, banker mode, seat) would be under the table minimum after the change: a bet placed, or a chip removed from the spot.",
    example: '"banker" total 50 would be below the table minimum 100',
  },
  BET_ABOVE_MAX: {
    meaning:
      "The player's total on the bet type would be over the table maximum (or could win more than the API can count exactly).",
    example: '"banker" total 600000 would exceed the table maximum 500000',
  },
  BET_DIFFERENCE_LIMIT: {
    meaning:
      "The gap between the player's Player and Banker stakes would exceed the table's limit after the change: a bet placed, or a chip removed from a hedge.",
    example:
      'the difference between Player (0) and Banker (300000) stakes would be 300000, over the limit 200000',
  },
  INVALID_SEAT: {
    meaning: "The seat is not one of the table's seats (or the table has none).",
    example: 'seat must be a number from 1 to 7',
  },
  BANKER_MODE_NOT_OFFERED: {
    meaning: 'The table does not offer this banker mode (commission, no-commission, ...).',
    example: 'banker mode "no_commission" is not offered; this table offers commission',
  },
  NO_BETS_TO_CLEAR: {
    meaning:
      "The player has no bets on the round to clear, or the bet to remove is not one of their standing bets (another player's, or removed already).",
    example: 'alice has no bets on round baccarat-1.3.12',
  },
  SEAT_TAKEN: {
    meaning:
      "The seat is another player's, or the player sits at another seat of the table already: one player per seat, one seat per player (002). Leave the other seat first.",
    example: 'seat 3 of table salon is taken',
  },
  NOT_SEATED: {
    meaning: 'The player sits at no seat of this table: nothing to leave.',
    example: 'carla sits at no seat of table salon',
  },
  NO_BETS_TO_DEAL: {
    meaning:
      'A player deals their session round with no bets on it (003 deals a hand only for bets): bet, or rebet, first.',
    example: 'alice has no bets on round s-4f0c.1.1: bet, or rebet, before dealing',
  },
  BETS_ALREADY_PLACED: {
    meaning:
      "A rebet while the player has bets on the round: a rebet repeats the previous round's bets alone (003), so deal the bets already down, or clear them and rebet.",
    example: 'alice has bets on round s-4f0c.1.2: deal them, or clear them before a rebet',
  },
  NO_PREVIOUS_BETS: {
    meaning: 'The player has no earlier bets at this table to repeat.',
    example: 'alice has no earlier bets at this table to repeat',
  },
  IMPOSSIBLE_CARD: {
    meaning: 'The shoe cannot hold this card: every copy of it has been dealt already.',
    example: 'a 8-deck shoe holds no more QS',
  },
  INVALID_DEAL: {
    meaning:
      'The card or deal breaks the drawing rules or the shoe sequence: a card the round does not need, a card to the wrong hand, a shoe not yet burned. Opening the first round of a new scanner shoe creates the shoe and answers this: `shoeId` names the shoe to burn, `hint` the request.',
    example: 'the next card goes to the banker, not the player',
  },
  INVALID_CORRECTION: {
    meaning:
      'The correction cannot apply: no card of the round came from that shoe position, or the corrected cards would deal a different number of cards.',
    example: 'no card of round baccarat-1.3.12 came from shoe position 40',
  },
  INVALID_TABLE_CONFIG: {
    meaning: 'The table configuration breaks its rules. `errors` names each bad field.',
    example: 'invalid table configuration: decks: Too big: expected number to be <=8',
  },
  SEED_MISMATCH: {
    meaning:
      "The shoe's seed does not match its published commitment, so the stored shoe was altered: nothing was dealt or closed. Report it.",
    example: "the revealed seed does not match shoe baccarat-1.3's commitment",
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The body is over the size limit (64 KiB unless configured otherwise).',
    example: 'Request body is too large',
  },
  URI_TOO_LONG: {
    meaning: 'A path parameter is over 100 characters.',
    example: "'/v1/rounds/aaaaaaaa…' is exceeding the max param length",
  },
  REQUEST_TIMEOUT: {
    meaning:
      'The whole request (headers and body) did not arrive within the request timeout (`HTTP_REQUEST_TIMEOUT_MS`); the connection is closed. Send the request again at once.',
    example: 'the request did not arrive in time: send the headers and the body at once',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    meaning:
      'A body in a media type other than JSON (`text/plain`, a form, none at all): send `content-type: application/json`.',
    example: 'the body must be application/json; got content-type text/plain',
  },
  RATE_LIMITED: {
    meaning:
      'Too many requests from this client (its token, or its address without one), or too many failed logins from its address (`RATE_LIMIT_FAILED_LOGINS_PER_MINUTE`: only requests with a valid token go on). `Retry-After` says when to try again.',
    example: 'too many requests: at most 6000 a minute; retry in 1 minute',
  },
  HEADERS_TOO_LARGE: {
    meaning:
      'The request line and headers are larger than the server reads (`HTTP_MAX_HEADER_SIZE`); the connection is closed.',
    example: 'the request line and headers are larger than this server reads',
  },
  INTERNAL_ERROR: {
    meaning:
      'An unexpected failure. The command may or may not have applied: retry with the same ids. Logged with the correlation id.',
    example: 'an unexpected error occurred; it has been logged with the correlation id',
  },
  UNAVAILABLE: {
    meaning:
      'A dependency is out: the event store (PostgreSQL, PGlite, EventStoreDB) or Redis could not be reached, another service it needs did not answer, or the service is shutting down (a request that arrived after SIGTERM, answered with Connection: close). Always sent with `Retry-After`. Retry: bet ids and references make a retry count once.',
    example: 'this service is shutting down: retry',
  },
};

/**
 * Every stable error code explained, for docs/errors.md and the OpenAPI document. Typed so a new
 * code does not compile until it is described.
 */
export const ERROR_DESCRIPTIONS: { readonly [Code in ErrorCode]: ErrorCodeDescription } =
  descriptions;
