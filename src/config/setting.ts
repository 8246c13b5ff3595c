/**
 * One row of the settings table (settings.ts) and the builders of its rows: an integer between
 * bounds, a text, a text read by a parser. loadConfig, `mmds --help`, the unknown-variable warning
 * and the README's settings table all read the rows (issue 34: every setting written once).
 */
import { ConfigError } from '../lib/config-error.ts';

/** The environment as the composition roots hand it over (process.env there). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface Setting {
  /** Where loadConfig puts the value: a key of Config, or `group.key` (`hooks.pollMs`). */
  name: string;
  /** The environment variable, as --help and the README name it. */
  variable: string;
  /** Every variable it reads (the unknown-variable warning knows these). */
  variables: readonly string[];
  /** Reads the value; throws ConfigError on one that cannot be used. undefined: left out of its group. */
  read(env: Env, cwd: string): unknown;
  /** The default as printed; '' when unset means none. */
  default: string;
  /** Inclusive bounds of an integer. */
  bounds?: readonly [number, number];
  /** What it sets, one phrase. */
  help: string;
  /** More about the value, printed after the default: `(default 64; 128 counts each address)`. */
  more?: string;
  /** A rule across settings, checked once this one is read, with every value read so far. */
  check?(values: Readonly<Record<string, unknown>>): void;
}

type Described = Pick<Setting, 'name' | 'variable' | 'help' | 'more' | 'check'>;

/**
 * An integer from `bounds[0]` to `bounds[1]`; unset or empty gives `fallback`. `shown` is the
 * default to print when `fallback` is not it (the value is then defaulted further down).
 */
export function integer(
  row: Described & {
    fallback: number | null | undefined;
    bounds: readonly [number, number];
    shown?: string;
  },
): Setting {
  const [min, max] = row.bounds;
  return {
    ...row,
    variables: [row.variable],
    default: row.shown ?? (typeof row.fallback === 'number' ? String(row.fallback) : ''),
    read: (env) => readInteger(env, row.variable, row.fallback, min, max),
  };
}

/** A text taken as given; unset or empty gives `fallback`. */
export function text(row: Described & { fallback: string | null; trim?: boolean; shown?: string }): Setting {
  return {
    ...row,
    variables: [row.variable],
    default: row.shown ?? row.fallback ?? '',
    read: (env) => (row.trim ? env[row.variable]?.trim() : env[row.variable]) || row.fallback,
  };
}

/**
 * A value read by `parse` from the raw text (undefined when unset); a plain Error it throws
 * becomes a ConfigError with the same message.
 */
export function parsed(
  row: Described & { default: string; parse(raw: string | undefined, cwd: string): unknown },
): Setting {
  return {
    ...row,
    variables: [row.variable],
    read: (env, cwd) => {
      try {
        return row.parse(env[row.variable], cwd);
      } catch (error) {
        if (error instanceof ConfigError || !(error instanceof Error)) throw error;
        throw new ConfigError(error.message);
      }
    },
  };
}

/** An integer setting's value: `fallback` when unset or empty. */
export function readInteger<T>(env: Env, name: string, fallback: T, min: number, max: number): number | T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
