import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Keeps rng shoes' secret seeds sealed in their ShoeShuffled events (AES-256-GCM under the
 * server's seed key), so a restarted server can keep dealing a shoe while nobody who reads the
 * store can see its cards coming. The seed is revealed in ShoeClosed.
 */
export class SeedVault {
  private readonly key: Buffer;

  /** `secret`: the seed key, any string of at least 32 characters (from SHOE_SEED_KEY). */
  constructor(secret: string) {
    if (secret.length < 32)
      throw new RangeError('the shoe seed key must be at least 32 characters');
    this.key = createHash('sha256').update('croupier/seed-vault/v1\0').update(secret).digest();
  }

  seal(seedHex: string, shoeId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(shoeId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(Buffer.from(seedHex, 'hex')), cipher.final()]);
    return [
      'v1',
      iv.toString('base64'),
      sealed.toString('base64'),
      cipher.getAuthTag().toString('base64'),
    ].join(':');
  }

  /** Opens a sealed seed; fails if it was sealed for another shoe or with another key. */
  unseal(sealed: string, shoeId: string): string {
    const [version, iv, data, tag] = sealed.split(':');
    if (version !== 'v1' || iv === undefined || data === undefined || tag === undefined) {
      throw new Error('not a sealed seed');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(shoeId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString(
      'hex',
    );
  }
}
