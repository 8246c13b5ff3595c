import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { InputError } from './input-error.ts';

/** A path into a parsed YAML value, as zod reports it (`['series', 3, 'frequency']`). */
export type YamlPath = readonly PropertyKey[];

/** A parsed YAML document whose nodes can be traced back to lines of the file. */
export interface LocatedYaml {
  value: unknown;
  /** The file line of the node at `path`, or of its nearest existing ancestor. */
  lineOf(path: YamlPath): number;
}

/**
 * Parses YAML text with line tracking; `firstLine` is the file line the text starts on (front
 * matter starts on line 2), so that every reported line is a line of the file.
 */
export function parseLocatedYaml(file: string, text: string, firstLine = 1): LocatedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const toFileLine = (offset: number) => lineCounter.linePos(offset).line + firstLine - 1;
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos ? error.linePos[0].line + firstLine - 1 : firstLine;
    // yaml appends " at line N, column M:" and a code excerpt; the InputError carries the line.
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new InputError(file, line, `invalid YAML: ${reason}`);
  }
  return {
    value: doc.toJS(),
    lineOf(path) {
      let node: unknown = doc.contents;
      let line = node ? toFileLine((node as Node).range?.[0] ?? 0) : firstLine;
      for (const key of path) {
        if (isMap(node)) {
          const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
          if (!pair) break;
          const keyNode = pair.key as Node | null;
          if (keyNode?.range) line = toFileLine(keyNode.range[0]);
          node = pair.value;
        } else if (isSeq(node) && typeof key === 'number') {
          const item = node.items[key] as Node | undefined;
          if (!item) break;
          if (item.range) line = toFileLine(item.range[0]);
          node = item;
        } else {
          break;
        }
      }
      return line;
    },
  };
}

/** Formats a path the way the catalog is written: `series[3].frequency`. */
export function formatYamlPath(path: YamlPath): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/** A problem at one place of a YAML document. */
export interface YamlProblem {
  path: YamlPath;
  message: string;
}

/** The value at `path` inside a parsed YAML value, or undefined where the path ends early. */
function getValueAt(root: unknown, path: YamlPath): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Rewrites a zod issue on `input` as a path and a short message for a person editing the file. */
export function describeZodIssue(issue: z.core.$ZodIssue, input: unknown): YamlProblem {
  switch (issue.code) {
    case 'invalid_type':
      if (getValueAt(input, issue.path) === undefined)
        return { path: issue.path, message: 'required field missing' };
      return { path: issue.path, message: issue.message.replace(/^Invalid input: /, '') };
    case 'invalid_value':
      return { path: issue.path, message: `expected one of ${issue.values.map(String).join(', ')}` };
    case 'unrecognized_keys':
      return { path: [...issue.path, issue.keys[0] ?? ''], message: 'unknown field' };
    default:
      return { path: issue.path, message: issue.message };
  }
}

/** Builds the InputError for a problem: `<file>:<line>: <path>: <message>`. */
export function createYamlInputError(file: string, located: LocatedYaml, problem: YamlProblem): InputError {
  const where = problem.path.length === 0 ? '' : `${formatYamlPath(problem.path)}: `;
  return new InputError(file, located.lineOf(problem.path), `${where}${problem.message}`);
}
