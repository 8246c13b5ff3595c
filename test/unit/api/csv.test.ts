import { describe, expect, it } from 'vitest';
import { renderCsv } from '../../../src/api/v1/csv.ts';

describe('renderCsv', () => {
  it('writes a header row and CRLF line ends', () => {
    expect(
      renderCsv([
        { period: '2025-01', value: 1.5 },
        { period: '2025-02', value: -2 },
      ]),
    ).toBe('period,value\r\n2025-01,1.5\r\n2025-02,-2\r\n');
  });

  it('quotes fields holding a comma, a quote or a line break, doubling quotes', () => {
    const csv = renderCsv([{ a: 'x,y', b: 'say "hi"', c: 'one\ntwo', d: 'cr\rhere', e: 'plain' }]);
    expect(csv).toBe('a,b,c,d,e\r\n"x,y","say ""hi""","one\ntwo","cr\rhere",plain\r\n');
  });

  it('quotes header names that need it', () => {
    expect(renderCsv([{ 'a,b': 1 }])).toBe('"a,b"\r\n1\r\n');
  });

  it('flattens nested objects to dotted names, joins arrays with ; and leaves null empty', () => {
    const csv = renderCsv([
      {
        report_date: '2025-03-11',
        categories: { noncommercial: { long: 296172, short: null } },
        tags: ['a', 'b'],
        supersedes_id: null,
        in_force: true,
      },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'report_date,categories.noncommercial.long,categories.noncommercial.short,tags,supersedes_id,in_force',
      '2025-03-11,296172,,a;b,,true',
      '',
    ]);
  });

  it('takes the union of columns in first-seen order; missing fields are empty', () => {
    expect(renderCsv([{ a: 1 }, { b: 2, a: 3 }])).toBe('a,b\r\n1,\r\n3,2\r\n');
  });

  it('drops a bare column that is null where other rows hold an object', () => {
    expect(
      renderCsv([
        { k: 'x', latest: null },
        { k: 'y', latest: { value: 4 } },
      ]),
    ).toBe('k,latest.value\r\nx,\r\ny,4\r\n');
  });

  it('keeps objects inside arrays as JSON, quoted', () => {
    expect(renderCsv([{ list: [{ a: 1 }, 2] }])).toBe('list\r\n"{""a"":1};2"\r\n');
  });

  it('renders an empty array as an empty body and bare values as a value column', () => {
    expect(renderCsv([])).toBe('');
    expect(renderCsv(['x', 1])).toBe('value\r\nx\r\n1\r\n');
  });
});
