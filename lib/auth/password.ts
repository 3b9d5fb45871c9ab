import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Hashes and checks passwords with scrypt; the parameters travel inside the stored string so they can be raised later. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function optionsFor(logN: number, r: number, p: number): ScryptOptions {
  // maxmem must cover 128 * N * r bytes, with room to spare.
  return { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 };
}

/** @param logN log2 of scrypt's cost N (15 → 32 MiB per hash; the time a hash takes: bench/README.md, "This machine"). */
export function createPasswordHasher({ logN }: { logN: number }): PasswordHasher {
  const r = 8;
  const p = 1;
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, optionsFor(logN, r, p));
      return `scrypt$${logN}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verify(password, stored) {
      const [scheme, logNText, rText, pText, saltText, keyText] = stored.split('$');
      if (scheme !== 'scrypt' || !logNText || !rText || !pText || !saltText || !keyText) return false;
      const expected = Buffer.from(keyText, 'base64url');
      const actual = await derive(password, Buffer.from(saltText, 'base64url'), optionsFor(Number(logNText), Number(rText), Number(pText)));
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
