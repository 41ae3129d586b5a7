import { generateKeyPairSync, sign } from 'node:crypto';
import type { Checkpoint, StreamHead } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import {
  changedRootOf,
  checkpointHeadOf,
  GENESIS_HEAD,
  keyIdOf,
  merkleRoot,
  replayCheckpoints,
  VerdictBuilder,
} from '../src/index.js';

/**
 * The Merkle tree is RFC 6962's: checked against Certificate Transparency's published test
 * vectors (the roots of the first 1..8 of these leaves), then the notary chain's own checks.
 */
const CT_LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((hex) => Buffer.from(hex, 'hex'));
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

describe('the Merkle tree (RFC 6962)', () => {
  it('gives the Certificate Transparency roots for 0 to 8 leaves', () => {
    for (let size = 0; size <= 8; size++)
      expect(merkleRoot(CT_LEAVES.slice(0, size)).toString('hex'), `size ${size}`).toBe(
        CT_ROOTS[size],
      );
  });

  it('takes the heads in stream order, whatever order they are given in', () => {
    const heads: StreamHead[] = [
      { stream: 'wallet-b', revision: '3', hash: 'b'.repeat(64) },
      { stream: 'round-t.1.1', revision: '9', hash: 'c'.repeat(64) },
      { stream: 'wallet-a', revision: '1', hash: 'a'.repeat(64) },
    ];
    expect(changedRootOf(heads)).toBe(changedRootOf([...heads].reverse()));
    expect(changedRootOf(heads)).not.toBe(
      changedRootOf([{ ...heads[0]!, revision: '4' }, ...heads.slice(1)]),
    );
  });
});

/** A notary stream of signed checkpoints, as the gateway's notary writes it. */
function notaryStream(changes: StreamHead[][]): RecordedEvent[] {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  let previous = GENESIS_HEAD;
  return changes.map((changed, index) => {
    const unsigned = {
      sequence: index + 1,
      position: String((index + 1) * 100),
      at: new Date(Date.UTC(2026, 11, 1, 12, index)).toISOString(),
      count: changed.length,
      changedRoot: changedRootOf(changed),
      previous,
    };
    const head = checkpointHeadOf(unsigned);
    previous = head;
    const data: Checkpoint = {
      ...unsigned,
      changed,
      head,
      signer: { keyId: keyIdOf(raw), publicKey: raw.toString('base64') },
      signature: sign(null, Buffer.from(head, 'hex'), privateKey).toString('base64'),
    };
    return {
      id: `id-${index}`,
      stream: 'notary',
      type: 'StreamHeadsCheckpointed',
      data,
      metadata: {},
      revision: BigInt(index),
      position: BigInt((index + 1) * 1000),
      recordedAt: new Date(),
    };
  });
}

const head = (stream: string, revision: number, fill: string): StreamHead => ({
  stream,
  revision: String(revision),
  hash: fill.repeat(64),
});

describe('replaying the notary stream', () => {
  const stream = notaryStream([
    [head('wallet-a', 0, 'a'), head('round-t.1.1', 4, 'b')],
    [head('wallet-a', 2, 'c')],
  ]);

  it('verifies a sound chain and folds the heads as of each checkpoint', () => {
    const verdict = new VerdictBuilder();
    const first = replayCheckpoints(stream, verdict, 1);
    expect(first.checkpoint?.sequence).toBe(1);
    expect(first.heads.get('wallet-a')?.revision).toBe(0n);
    const last = replayCheckpoints(stream, verdict);
    expect(last.heads.get('wallet-a')).toEqual({ revision: 2n, hash: 'c'.repeat(64) });
    expect(verdict.findings).toEqual([]);
    expect(replayCheckpoints(stream, new VerdictBuilder(), 3).checkpoint).toBeNull();
  });

  it('names a head edited in a checkpoint, a checkpoint removed and a signature of another key', () => {
    const edited = structuredClone(stream);
    (edited[0]!.data as Checkpoint).changed[0]!.hash = 'f'.repeat(64);
    const onEdit = new VerdictBuilder();
    replayCheckpoints(edited, onEdit);
    expect(onEdit.findings.map((f) => [f.code, f.revision])).toEqual([['CHECKPOINT_INVALID', '0']]);
    expect(onEdit.findings[0]!.message).toContain('Merkle root');

    const onRemoval = new VerdictBuilder();
    replayCheckpoints([stream[1]!], onRemoval);
    expect(onRemoval.findings[0]!.message).toMatch(/numbered 2, expected 1.*not the previous head/);

    const other = notaryStream([[head('wallet-a', 0, 'a'), head('round-t.1.1', 4, 'b')]]);
    const resigned = structuredClone(stream);
    (resigned[0]!.data as Checkpoint).signature = (other[0]!.data as Checkpoint).signature;
    const onSignature = new VerdictBuilder();
    replayCheckpoints(resigned, onSignature);
    expect(onSignature.findings[0]!.message).toContain('is not signed by key');
  });
});
