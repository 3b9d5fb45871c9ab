import { bearerToken } from '../../lib/auth/bearer-token.ts';

/**
 * The subscriptions each credential holds open in this process (SUBSCRIPTIONS_PER_TOKEN), counted by the token itself —
 * `Bearer`, `bearer`, `OAuth`, any spacing: one token, one count (lib/auth/bearer-token.ts) — on every transport.
 */
export class CredentialPlaces {
  private readonly open = new Map<string, number>();

  constructor(private readonly perToken: number) {}

  /** Whether the credential of these headers has no place left. */
  full(headers: Readonly<Record<string, string | undefined>>): boolean {
    return (this.open.get(credentialOf(headers)) ?? 0) >= this.perToken;
  }

  /**
   * Takes one of the credential's places (undefined when it has none left), synchronously: subscriptions started at
   * once on many connections cannot all pass the check before any is counted. The function it returns gives the place
   * back, once.
   */
  take(headers: Readonly<Record<string, string | undefined>>): (() => void) | undefined {
    const credential = credentialOf(headers);
    const open = this.open.get(credential) ?? 0;
    if (open >= this.perToken) return undefined;
    this.open.set(credential, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(credential) ?? 1) - 1;
      if (left === 0) this.open.delete(credential);
      else this.open.set(credential, left);
    };
  }
}

/** The credential a subscription counts against: the token, however its header spelled it ('' for none). */
function credentialOf(headers: Readonly<Record<string, string | undefined>>): string {
  return bearerToken(headers.authorization) ?? '';
}
