import { evaluateRound, type Card, type RoundResult } from '@croupier/baccarat';
import type { RoundEvent } from '@croupier/contracts';
import { canonicalJson, type RecordedEvent } from '@croupier/eventstore';
import { locationOf } from './parse.js';
import type { VerdictBuilder } from './verdict.js';

type Completed = Extract<RoundEvent, { type: 'RoundCompleted' }>['data'];

/**
 * Re-evaluates the round from its cards with the rules engine and compares every field of the
 * recorded result (RoundCompleted, or a result re-recorded after a correction) with it.
 */
export function checkOutcome(
  player: readonly Card[],
  banker: readonly Card[],
  data: Completed,
  recorded: RecordedEvent,
  verdict: VerdictBuilder,
): RoundResult | null {
  const at = locationOf(recorded);
  let evaluated: RoundResult;
  try {
    evaluated = evaluateRound(player, banker);
  } catch (error) {
    verdict.fail(
      'outcome',
      'OUTCOME_MISMATCH',
      at,
      `the recorded cards do not make a complete round: ${error instanceof Error ? error.message : String(error)}`,
      { found: `Player [${player.join(' ')}], Banker [${banker.join(' ')}]` },
    );
    return null;
  }
  const compare = (what: string, expected: unknown, found: unknown) => {
    if (canonicalJson(expected) === canonicalJson(found)) return;
    verdict.fail(
      'outcome',
      'OUTCOME_MISMATCH',
      at,
      `${what}: the rules give ${canonicalJson(expected)} from the cards, the record says ${canonicalJson(found)}`,
      { expected, found },
    );
  };
  compare('winner', evaluated.winner, data.winner);
  compare("Player's cards", evaluated.player, data.player.cards);
  compare("Banker's cards", evaluated.banker, data.banker.cards);
  compare('Player total', evaluated.playerTotal, data.player.total);
  compare('Banker total', evaluated.bankerTotal, data.banker.total);
  compare('Player natural', evaluated.playerNatural, data.player.natural);
  compare('Banker natural', evaluated.bankerNatural, data.banker.natural);
  compare('Player pair', evaluated.playerPair, data.player.pair);
  compare('Banker pair', evaluated.bankerPair, data.banker.pair);
  compare('Player perfect pair', evaluated.playerPerfectPair, data.player.perfectPair);
  compare('Banker perfect pair', evaluated.bankerPerfectPair, data.banker.perfectPair);
  verdict.pass('outcome');
  return evaluated;
}
