import { createHash } from 'node:crypto';
import {
  auditRound,
  exportShoe,
  replayShoe,
  verifyExport,
  type RoundEvidence,
  type ShoeEvidence,
  type ShoeReplay,
} from '@croupier/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRoundEvidence, loadShoeEvidence } from '../src/index.js';
import { playShoe, startCasino, type Casino, type PlayedShoe } from './support/casino.js';
import { copyRound, copyShoe, editData, find, named, rechain } from './support/tamper.js';

/**
 * A whole shoe is played through the services (System on an in-memory PGlite), then replayed
 * from its events; copies of those events are tampered with and each tampering must be found
 * and named: which check, which code, which stream and revision.
 */
let casino: Casino;
let played: PlayedShoe;
let shoe: ShoeEvidence;

beforeAll(async () => {
  casino = await startCasino();
  played = await playShoe(casino.system, 'audit', { voidRounds: [3], clearRounds: [4] });
  shoe = (await loadShoeEvidence(casino.store, played.shoeId))!;
}, 240_000);

afterAll(async () => {
  await casino.close();
});

const roundStream = (evidence: ShoeEvidence, number: number) => {
  const round = evidence.rounds.find((r) => r.roundId === `${evidence.shoeId}.${number}`);
  if (round === undefined) throw new Error(`no round ${number}`);
  return round;
};

/** A completed round with at least one winning bet, for the payout tamperings. */
const completedRound = (evidence: ShoeEvidence) =>
  evidence.rounds.find(
    (r) => r.events.some((e) => e.type === 'RoundSettled') && r.roundId !== `${evidence.shoeId}.3`,
  )!;

describe('a shoe played through the services', () => {
  it('replays as valid from its events alone', () => {
    const replay = replayShoe(shoe);
    expect(named(replay.verdict)).toEqual([]);
    expect(replay.verdict.ok).toBe(true);
    const status = Object.fromEntries(replay.verdict.checks.map((c) => [c.check, c.status]));
    expect(status).toMatchObject({
      'hash-chain': 'pass',
      commitment: 'pass',
      'shuffle-order': 'pass',
      burn: 'pass',
      'card-sequence': 'pass',
      'third-card-rule': 'pass',
      'cut-card': 'pass',
      'last-round': 'pass',
      'streams-agree': 'pass',
      outcome: 'pass',
      payouts: 'pass',
      refunds: 'pass',
      debits: 'pass',
      digest: 'pass',
      composition: 'pass',
      corrections: 'skip',
    });
    expect(replay.status).toBe('closed');
    expect(replay.rounds.map((r) => r.roundId)).toEqual(played.roundIds);
    expect(replay.roundsDealt).toBe(played.roundIds.length);
    expect(replay.cutCard?.lastRoundNumber).toBe(played.roundIds.length);
    expect(replay.rounds.find((r) => r.number === 3)?.status).toBe('voided');
    expect(replay.digest?.streams).toBe(played.roundIds.length + 1);
  });

  it('reports progress per stream', () => {
    const progress: number[] = [];
    replayShoe(shoe, { onProgress: (done, total) => progress.push(done / total) });
    expect(progress).toHaveLength(shoe.rounds.length + 1);
    expect(progress.at(-1)).toBe(1);
  });

  it('audits a round: trail, cards with positions, third-card reasons, bets, wallet, verdict', async () => {
    const evidence = (await loadRoundEvidence(casino.store, played.roundIds[0]!))!;
    const audit = auditRound(evidence);
    expect(named(audit.verdict)).toEqual([]);
    expect(audit.verdict.checks.find((c) => c.check === 'shuffle-order')?.status).toBe('pass');
    expect(audit.status).toBe('completed');
    expect(audit.cards.length).toBeGreaterThanOrEqual(4);
    expect(audit.cards.map((c) => c.shoePosition)).toEqual(
      audit.cards.map((_, i) => audit.cards[0]!.shoePosition + i),
    );
    expect(audit.thirdCards).toHaveLength(2);
    expect(audit.thirdCards[1]!.reason).toMatch(/^Banker \d (draws|stands)|natural/);
    expect(audit.bets).toHaveLength(7);
    for (const bet of audit.bets) expect(bet.settlement?.payout).toBe(bet.expected?.payout);
    const trailTypes = audit.trail.map((t) => t.type);
    expect(trailTypes).toContain('RoundOpened');
    expect(trailTypes).toContain('CardsDrawn');
    expect(trailTypes).toContain('StakeDebited');
    expect(trailTypes).toContain('PayoutCredited');
    const placed = audit.trail.find((t) => t.type === 'BetPlaced')!;
    expect(placed.actor).toEqual({ id: 'alice', role: 'player' });
    expect(placed.what).toMatch(/^alice bet 10\.01 EUR on banker/);
    expect(audit.wallet?.filter((m) => m.type === 'StakeDebited')).toHaveLength(7);
    expect(audit.wallet?.filter((m) => m.type === 'PayoutCredited')).toHaveLength(7);
  });

  it('explains a Banker draw by the Player third card', () => {
    const explained = shoe.rounds
      .map((r) => auditRound({ roundId: r.roundId, round: r.events }).thirdCards)
      .flat()
      .map((d) => d.reason);
    expect(
      explained.some((r) => /^Banker \d (draws|stands): Player's third card was \d$/.test(r)),
    ).toBe(true);
  });

  it('audits a voided round and a round with cleared bets as valid', async () => {
    for (const number of [3, 4]) {
      const evidence = (await loadRoundEvidence(casino.store, `${played.shoeId}.${number}`))!;
      const audit = auditRound(evidence);
      expect(named(audit.verdict), `round ${number}`).toEqual([]);
    }
    const voided = auditRound((await loadRoundEvidence(casino.store, `${played.shoeId}.3`))!);
    expect(voided.status).toBe('voided');
    expect(voided.bets.every((b) => b.refund?.reason === 'voided')).toBe(true);
    expect(voided.trail.find((t) => t.type === 'RoundVoided')?.actor).toEqual({
      id: 'sue',
      role: 'supervisor',
    });
  });
});

describe('tampering', () => {
  it('an edited card is named: the chain, the other stream, the seed', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 5);
    const { event } = find(round.events, 'CardDealt');
    editData(event, (data) => {
      data['card'] = data['card'] === 'KD' ? 'QD' : 'KD';
    });
    const found = named(replayShoe(evidence).verdict);
    const at = `round-${round.roundId}@${event.revision}`;
    expect(found).toContain(`hash-chain/EVENT_EDITED ${at}`);
    expect(found).toContain(`streams-agree/STREAMS_DISAGREE ${at}`);
    expect(found).toContain(`shuffle-order/CARD_MISMATCH ${at}`);
  });

  it('an edited card is still named when the insider re-hashes the chain', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 5);
    const { event } = find(round.events, 'CardDealt');
    editData(event, (data) => {
      data['card'] = data['card'] === 'KD' ? 'QD' : 'KD';
    });
    (round as { events: unknown }).events = rechain([...round.events]);
    const replay = replayShoe(evidence);
    const found = named(replay.verdict);
    expect(found.filter((f) => f.startsWith('hash-chain/'))).toEqual([]);
    expect(found).toContain(`shuffle-order/CARD_MISMATCH round-${round.roundId}@${event.revision}`);
    expect(found).toContain(
      `streams-agree/STREAMS_DISAGREE round-${round.roundId}@${event.revision}`,
    );
    expect(found.some((f) => f.startsWith(`digest/DIGEST_MISMATCH round-${round.roundId}@`))).toBe(
      true,
    );
  });

  it('a changed payout is named with the bet, the recomputed and the recorded amount', () => {
    const evidence = copyShoe(shoe);
    const round = completedRound(evidence);
    const { event } = find(round.events, 'RoundSettled');
    const line = (event.data as { lines: { betId: string; payout: number }[] }).lines[0]!;
    const original = line.payout;
    line.payout = original + 5_000;
    const replay = replayShoe(evidence);
    const at = `round-${round.roundId}@${event.revision}`;
    expect(named(replay.verdict)).toContain(`hash-chain/EVENT_EDITED ${at}`);
    const payout = replay.verdict.findings.find(
      (f) => f.code === 'PAYOUT_MISMATCH' && f.message.includes(line.betId),
    );
    expect(payout).toMatchObject({
      check: 'payouts',
      stream: `round-${round.roundId}`,
      revision: String(event.revision),
      expected: String(original),
      found: String(original + 5_000),
    });
    expect(named(replay.verdict)).toContain(`payouts/TOTALS_MISMATCH ${at}`);
    expect(replay.rounds.find((r) => r.roundId === round.roundId)?.ok).toBe(false);
  });

  it('a changed payout credited to a wallet is named', () => {
    const evidence = copyShoe(shoe);
    const credit = evidence.wallet!.find(
      (e) => e.type === 'PayoutCredited' && (e.data as { amount: number }).amount > 0,
    )!;
    editData(credit, (data) => {
      data['amount'] = (data['amount'] as number) * 10;
    });
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(`hash-chain/EVENT_EDITED ${credit.stream}@${credit.revision}`);
    expect(found).toContain(`debits/CREDIT_MISMATCH ${credit.stream}@${credit.revision}`);
  });

  it('a deleted event is named by the revision that is missing', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 6);
    const { event, index } = find(round.events, 'BetPlaced');
    (round.events as unknown[]).splice(index, 1);
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(`hash-chain/EVENT_MISSING round-${round.roundId}@${event.revision}`);
    // The bet it recorded is gone, but its stake was debited and paid.
    expect(found.some((f) => f.startsWith('debits/CREDIT_MISMATCH wallet-'))).toBe(true);
  });

  it('a deleted event hidden by re-hashing is named by the digest and the money', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 6);
    const { index } = find(round.events, 'BetPlaced');
    const events = [...round.events];
    events.splice(index, 1);
    (round as { events: unknown }).events = rechain(events);
    const found = named(replayShoe(evidence).verdict);
    expect(found.filter((f) => f.startsWith('hash-chain/'))).toEqual([]);
    expect(found.some((f) => f.startsWith(`digest/DIGEST_MISMATCH round-${round.roundId}@`))).toBe(
      true,
    );
    expect(found.some((f) => f.startsWith('payouts/PAYOUT_MISMATCH'))).toBe(true);
  });

  it('a round stream missing between its neighbours is named', () => {
    const evidence = copyShoe(shoe);
    (evidence.rounds as unknown[]).splice(4, 1);
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(`hash-chain/EVENT_MISSING round-${played.shoeId}.5@-`);
    expect(found).toContain(`streams-agree/STREAMS_DISAGREE round-${played.shoeId}.5@-`);
    expect(
      found.some((f) => f.startsWith(`digest/DIGEST_MISMATCH round-${played.shoeId}.5@`)),
    ).toBe(true);
  });

  it('a reordered event is named as reordered', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 7);
    const first = find(round.events, 'CardDealt');
    const second = round.events[first.index + 1]!;
    expect(second.type).toBe('CardDealt');
    // Rows swapped in the table: each keeps its content, the revisions trade places.
    const events = [...round.events];
    events[first.index] = { ...second, revision: first.event.revision };
    events[first.index + 1] = { ...first.event, revision: second.revision };
    (round as { events: unknown }).events = events;
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(
      `hash-chain/EVENT_REORDERED round-${round.roundId}@${first.event.revision}`,
    );
    expect(found).toContain(`hash-chain/EVENT_REORDERED round-${round.roundId}@${second.revision}`);
    expect(
      found.some((f) => f.startsWith(`third-card-rule/THIRD_CARD_RULE round-${round.roundId}`)),
    ).toBe(true);
  });

  it('events stored out of order are named as reordered', () => {
    const evidence = copyShoe(shoe);
    const round = roundStream(evidence, 7);
    const events = [...round.events];
    const [a, b] = [events[2]!, events[3]!];
    events[2] = b;
    events[3] = a;
    (round as { events: unknown }).events = events;
    const found = named(replayShoe(evidence).verdict);
    expect(found).toContain(`hash-chain/EVENT_REORDERED round-${round.roundId}@${a.revision}`);
  });

  it('a forged commitment is named, even in a re-hashed shoe stream', () => {
    const forged = createHash('sha256').update('forged').digest('hex');
    for (const hide of [false, true]) {
      const evidence = copyShoe(shoe);
      const shuffled = evidence.shoe[0]!;
      editData(shuffled, (data) => {
        data['commitment'] = forged;
      });
      if (hide) (evidence as { shoe: unknown }).shoe = rechain([...evidence.shoe]);
      const replay = replayShoe(evidence);
      const found = named(replay.verdict);
      expect(found).toContain(`commitment/COMMITMENT_MISMATCH shoe-${played.shoeId}@0`);
      const commitment = replay.verdict.findings.find((f) => f.code === 'COMMITMENT_MISMATCH');
      expect(commitment?.found).toBe(forged);
      if (hide) expect(found.some((f) => f.startsWith('digest/DIGEST_MISMATCH'))).toBe(true);
      else expect(found).toContain(`hash-chain/EVENT_EDITED shoe-${played.shoeId}@0`);
    }
  });

  it('a round audit names an edited card against its shoe', async () => {
    const evidence: RoundEvidence = copyRound(
      (await loadRoundEvidence(casino.store, played.roundIds[4]!))!,
    );
    const { event } = find([...evidence.round], 'CardDealt');
    editData(event, (data) => {
      data['card'] = data['card'] === 'KD' ? 'QD' : 'KD';
    });
    const { verdict } = auditRound(evidence);
    const found = named(verdict);
    const at = `round-${evidence.roundId}@${event.revision}`;
    expect(found).toContain(`hash-chain/EVENT_EDITED ${at}`);
    expect(found).toContain(`streams-agree/STREAMS_DISAGREE ${at}`);
    expect(found).toContain(`shuffle-order/CARD_MISMATCH ${at}`);
    // The report leads with the edited event, not with what the rules recompute from it.
    expect(named({ ...verdict, findings: [verdict.findings[verdict.cause!]!] })).toEqual([
      `hash-chain/EVENT_EDITED ${at}`,
    ]);
  });

  it("an edited card in the shoe's CardsDrawn is the cause, and the disagreement is named there", async () => {
    const evidence: RoundEvidence = copyRound(
      (await loadRoundEvidence(casino.store, played.roundIds[4]!))!,
    );
    const drawn = evidence.shoe!.find(
      (e) =>
        e.type === 'CardsDrawn' && (e.data as { roundId: string }).roundId === evidence.roundId,
    )!;
    editData(drawn, (data) => {
      const cards = data['cards'] as { card: string }[];
      cards[0]!.card = cards[0]!.card === 'KD' ? 'QD' : 'KD';
    });
    const { verdict } = auditRound(evidence);
    const at = `shoe-${played.shoeId}@${drawn.revision}`;
    expect(named(verdict)).toContain(`streams-agree/STREAMS_DISAGREE ${at}`);
    expect(named(verdict).filter((f) => f.includes('STREAMS_DISAGREE'))).toEqual([
      `streams-agree/STREAMS_DISAGREE ${at}`,
    ]);
    expect(verdict.findings[verdict.cause!]).toMatchObject({
      code: 'EVENT_EDITED',
      stream: `shoe-${played.shoeId}`,
      revision: String(drawn.revision),
    });
  });
});

describe('export and offline verification', () => {
  let text: string;
  beforeAll(() => {
    text = JSON.stringify(exportShoe(shoe), null, 2);
  });

  it('round-trips: the exported file verifies offline exactly as the store does', () => {
    const offline: ShoeReplay = verifyExport(text);
    const online = replayShoe(shoe);
    expect(offline.verdict.ok).toBe(true);
    // The file is checked as a file too (its instructions, nothing added): one check more.
    const fileCheck = offline.verdict.checks.at(-1);
    expect(fileCheck).toMatchObject({ check: 'export-file', status: 'pass' });
    expect({
      ...offline,
      verdict: { ...offline.verdict, checks: offline.verdict.checks.slice(0, -1) },
    }).toEqual(online);
    const file = JSON.parse(text) as { format: string; version: number; instructions: string[] };
    expect(file.format).toBe('croupier.shoe-export');
    expect(file.version).toBe(1);
    expect(file.instructions.join('\n')).toMatch(/sha256/);
  });

  it('names an edit made to the file', () => {
    const file = JSON.parse(text) as {
      rounds: {
        roundId: string;
        events: { type: string; revision: string; data: { card: string } }[];
      }[];
    };
    const round = file.rounds[1]!;
    const dealt = round.events.find((e) => e.type === 'CardDealt')!;
    dealt.data.card = dealt.data.card === 'AS' ? '2S' : 'AS';
    const replay = verifyExport(JSON.stringify(file));
    expect(replay.verdict.ok).toBe(false);
    expect(named(replay.verdict)).toContain(
      `hash-chain/EVENT_EDITED round-${round.roundId}@${dealt.revision}`,
    );
  });

  it('refuses a file that is not an export, naming why', () => {
    expect(() => verifyExport('{"format":"something else"}')).toThrow(
      /not a Croupier shoe export: format/,
    );
    expect(() => verifyExport('not json')).toThrow(/not JSON/);
  });
});
