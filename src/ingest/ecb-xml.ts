import { basename } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { InputError } from './input-error.ts';
import { parseIsoDate } from './periods.ts';
import { cleanText } from './values.ts';

/** One rate of an XML file. */
export interface EcbXmlRate {
  date: string;
  currency: string;
  value: number;
  source_ref: string;
}

/** What one XML file yielded; `read` counts (date, currency) entries, `skipped` the `N/A` ones. */
export interface EcbXmlRates {
  rates: EcbXmlRate[];
  read: number;
  skipped: number;
}

type Node = Record<string | symbol, unknown>;

const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^\d+(\.\d+)?$/;

/**
 * Reads the rates of a gesmes XML file (daily, 90-day or full history) in document order;
 * `read` counts (date, currency) entries, `skipped` the `N/A` ones; `name` is what they cite.
 */
export function readEcbXmlRates(file: string, text: string, name = basename(file)): EcbXmlRates {
  // The parser accepts a document cut short without complaint; the validator does not.
  const validation = XMLValidator.validate(text);
  if (validation !== true)
    throw new InputError(file, validation.err.line, `malformed XML: ${validation.err.msg}`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    captureMetaData: true,
    isArray: (tag) => tag === 'Cube',
  });
  const document = parser.parse(text) as Node;
  const envelope = document.Envelope;
  if (!isNode(envelope)) {
    const found = Object.keys(document).find((key) => !key.startsWith('?')) ?? 'nothing';
    throw new InputError(
      file,
      null,
      `not an ECB reference-rate XML: root <${found}>, expected <gesmes:Envelope>`,
    );
  }
  const days = childCubes(envelope).flatMap(childCubes);
  if (days.length === 0) throw new InputError(file, null, "no <Cube time='...'> entries");
  const meta = XMLParser.getMetaDataSymbol() as unknown as symbol;
  // Only for error messages, so counting the lines up to the element is cheap enough.
  const lineOf = (node: Node) => {
    const start = (node[meta] as { startIndex?: number } | undefined)?.startIndex;
    return start === undefined ? null : text.slice(0, start).split('\n').length;
  };
  const result: EcbXmlRates = { rates: [], read: 0, skipped: 0 };
  const seen = new Set<string>();
  for (const day of days) {
    const time = String(day['@_time'] ?? '');
    if (parseIsoDate(time) === null) {
      throw new InputError(file, lineOf(day), `<Cube time='${time}'>: not a valid date YYYY-MM-DD`);
    }
    if (seen.has(time)) throw new InputError(file, lineOf(day), `duplicate <Cube time='${time}'>`);
    seen.add(time);
    const entries = childCubes(day);
    if (entries.length === 0) throw new InputError(file, lineOf(day), `<Cube time='${time}'> has no rates`);
    for (const entry of entries) {
      const currency = String(entry['@_currency'] ?? '');
      const where = `${time}/${currency}`;
      if (!CURRENCY.test(currency)) {
        throw new InputError(file, lineOf(entry), `${where}: currency is not a three-letter code`);
      }
      result.read += 1;
      const fail = (message: string) => new InputError(file, lineOf(entry), `${where}: ${message}`);
      const value = parseRate(entry['@_rate'] as string | undefined, fail);
      if (value === null) result.skipped += 1;
      else result.rates.push({ date: time, currency, value, source_ref: `${name}#${where}` });
    }
  }
  return result;
}

/** The `<Cube>` elements directly inside a node; empty `<Cube/>` elements carry nothing. */
function childCubes(node: Node): Node[] {
  const cubes = node.Cube;
  return Array.isArray(cubes) ? cubes.filter(isNode) : [];
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a positive decimal rate, or null for `N/A`; `fail` builds the error, locating it lazily. */
function parseRate(raw: string | null | undefined, fail: (message: string) => InputError): number | null {
  const text = cleanText(raw);
  if (text === 'N/A') return null;
  if (text === null) throw fail('value missing (the ECB writes N/A)');
  const value = Number(text);
  if (!RATE.test(text) || !(value > 0)) throw fail(`expected a positive rate, got "${text}"`);
  return value;
}
