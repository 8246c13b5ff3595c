import { describe, expect, it } from 'vitest';
import { renderCsv } from '../../../src/api/v1/csv.ts';

/** The body line of a one-row, one-column CSV. */
function cellOf(value: unknown): string {
  const [header, line, end] = renderCsv([{ v: value }]).split('\r\n');
  expect(header).toBe('v');
  expect(end).toBe('');
  return line!;
}

describe('renderCsv: formula injection (OWASP CSV Injection)', () => {
  it('quotes and prefixes with a single quote text starting with = + - @', () => {
    expect(cellOf('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(cellOf("+cmd|' /C calc'!A0")).toBe("\"'+cmd|' /C calc'!A0\"");
    expect(cellOf("-2+3+cmd|' /C calc'!A0")).toBe("\"'-2+3+cmd|' /C calc'!A0\"");
    expect(cellOf("@SUM(1+1)*cmd|' /C calc'!A0")).toBe("\"'@SUM(1+1)*cmd|' /C calc'!A0\"");
  });

  it('also neutralises a leading tab or carriage return', () => {
    expect(cellOf('\t=1+2')).toBe('"\'\t=1+2"');
    expect(cellOf('\r=1+2')).toBe('"\'\r=1+2"');
  });

  it("neutralises OWASP's own example, with its embedded quote and separator", () => {
    // OWASP: =1+2";=1+2 becomes "'=1+2"";=1+2".
    expect(cellOf('=1+2";=1+2')).toBe('"\'=1+2"";=1+2"');
  });

  it('never alters numbers, negative ones included', () => {
    expect(renderCsv([{ value: -1.5, change: -2, big: -12345678901234567890n, zero: 0 }])).toBe(
      'value,change,big,zero\r\n-1.5,-2,-12345678901234567890,0\r\n',
    );
    expect(cellOf(-0.0001)).toBe('-0.0001');
    expect(cellOf(1e-7)).toBe('1e-7');
    expect(cellOf([-1, 2.5, -3])).toBe('-1;2.5;-3');
  });

  it('keeps text that is just a decimal number as written', () => {
    for (const text of ['-1.5', '+2', '-.5', '-3e-4', '-10']) expect(cellOf(text)).toBe(text);
  });

  it('neutralises a joined array whose first element starts like a formula', () => {
    expect(cellOf(['=1+2', 'b'])).toBe('"\'=1+2;b"');
    expect(cellOf([-1, '=cmd'])).toBe('"\'-1;=cmd"');
    expect(cellOf(['a', '=b'])).toBe('a;=b');
  });

  it('leaves ordinary text, dates, timestamps and identifiers alone', () => {
    expect(
      renderCsv([
        {
          period: '2025-01',
          observed_at: '2026-01-09T13:30:00Z',
          key: 'bls.CES0000000001.change',
          note: 'a-b=c',
          empty: '',
          flag: false,
          missing: null,
        },
      ]),
    ).toBe(
      'period,observed_at,key,note,empty,flag,missing\r\n2025-01,2026-01-09T13:30:00Z,bls.CES0000000001.change,a-b=c,,false,\r\n',
    );
  });

  it('neutralises formula-like header names and bare string rows too', () => {
    expect(renderCsv([{ '=x': 1 }])).toBe('"\'=x"\r\n1\r\n');
    expect(renderCsv(['@x', -4])).toBe('value\r\n"\'@x"\r\n-4\r\n');
  });

  it('neutralises a lone sign or at sign', () => {
    expect(cellOf('-')).toBe('"\'-"');
    expect(cellOf('@')).toBe('"\'@"');
  });
});
