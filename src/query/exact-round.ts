/**
 * SQL that rounds quotients of integers half away from zero in exact integer arithmetic
 * (HUGEINT), the one rounding rule of the COT analytics (docs/api/cot-analytics.md). Rounding the
 * double of a quotient instead rounds some exact halves toward zero: 100 x 29/800 is 3.625, but
 * its double is 3.6249999999999996 and DuckDB's round() gives 3.62.
 *
 * Each result is a DOUBLE: the rounded integer divided by 10^decimals, which IEEE division rounds
 * to the double nearest the decimal, the very double JSON's `3.63` parses to.
 */

/** 10^decimals as an SQL integer literal (decimals 0 to 9: the scaled values stay far inside HUGEINT). */
function scaleOf(decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 9) {
    throw new RangeError(`decimals must be an integer from 0 to 9, got ${decimals}`);
  }
  return String(10 ** decimals);
}

const huge = (sql: string) => `CAST(${sql} AS HUGEINT)`;

/** The signed result of a rounded magnitude `k` (an integer) whose sign is that of `signed`. */
const signedDecimal = (signed: string, k: string, scale: string) =>
  `(CAST(CASE WHEN (${signed}) < 0 THEN -(${k}) ELSE ${k} END AS DOUBLE) / ${scale})`;

/**
 * SQL for `p / q` rounded half away from zero to `decimals` places, where `p` and `q` are SQL
 * integer expressions and `q` is positive: floor((2|p| 10^d + q) / (2q)) is the rounded
 * magnitude of |p| 10^d / q, computed without leaving the integers.
 */
export function roundedRatioSql(p: string, q: string, decimals: number): string {
  const scale = scaleOf(decimals);
  const k = `((2 * abs(${huge(p)}) * ${scale} + ${huge(q)}) // (2 * ${huge(q)}))`;
  return signedDecimal(p, k, scale);
}

/**
 * SQL for `a / sqrt(b)` rounded half away from zero to `decimals` places, where `a` and `b` are
 * SQL integer expressions and `b` is positive (the z-score: N net - sum over the root of
 * N sum of squares - sum squared). The quotient is irrational as a rule, so the magnitude is
 * estimated in doubles and then settled exactly: k is the largest integer with
 * (2k - 1)^2 b <= (2 |a| 10^d)^2, that is with k - 1/2 <= |a| 10^d / sqrt(b); the estimate is
 * off by at most one, and one step either way corrects it.
 */
export function roundedRootRatioSql(a: string, b: string, decimals: number): string {
  const scale = scaleOf(decimals);
  const estimate = `CAST(round(abs(CAST(${a} AS DOUBLE)) / sqrt(CAST(${b} AS DOUBLE)) * ${scale}) AS HUGEINT)`;
  const target = `((2 * ${scale} * abs(${huge(a)})) * (2 * ${scale} * abs(${huge(a)})))`;
  const reaches = (odd: string) => `(${odd}) * (${odd}) * ${huge(b)} <= ${target}`;
  const k = `(CASE WHEN ${estimate} >= 1 AND NOT ${reaches(`2 * ${estimate} - 1`)} THEN ${estimate} - 1
                   WHEN ${reaches(`2 * ${estimate} + 1`)} THEN ${estimate} + 1
                   ELSE ${estimate} END)`;
  return signedDecimal(a, k, scale);
}
