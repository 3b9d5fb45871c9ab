/**
 * Readers of one environment variable each, for lib/config.ts: each returns the variable's value in its type, its
 * default when it is unset or empty, and throws ConfigError naming the variable when it is anything else.
 */

/** Raised when the environment is not a valid configuration; names the variable. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** The environment as loadConfig reads it. */
export type Env = Record<string, string | undefined>;

export function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function optionalText(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function httpUrl(env: Env, name: string): string | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

/** A comma-separated list of absolute http(s) URLs (at most 16, none twice). */
export function httpUrls(env: Env, name: string): string[] | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  const urls = raw.split(',').map((part) => part.trim());
  if (urls.length > 16) throw new ConfigError(name, `lists ${urls.length} URLs; at most 16`);
  if (urls.includes('')) throw new ConfigError(name, 'has an empty entry between its commas');
  for (const url of urls) httpUrl({ [name]: url }, name);
  if (new Set(urls).size !== urls.length) throw new ConfigError(name, 'lists a URL twice');
  return urls;
}

export function corsOrigins(env: Env, name: string): string[] {
  const raw = optionalText(env, name);
  if (raw === undefined) return [];
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== origin) throw new ConfigError(name, `must list origins such as https://app.example.com, got "${origin}"`);
  }
  return origins;
}

export const PORT_MAX = 65535;

export function hostname(env: Env, name: string): string | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(value))
    throw new ConfigError(name, `must be a host name such as graph.example.com, got "${raw}"`);
  return value;
}
