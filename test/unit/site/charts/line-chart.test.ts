import { describe, expect, it } from 'vitest';
import { pathData, renderLineChart, round } from '../../../../src/site/charts/line-chart.ts';

/** Reads a path of pathData back to absolute points (M x y, then l dx dy per point). */
function readPath(d: string): Array<[number, number]> {
  const commands = [...d.matchAll(/([Ml])(-?[\d.]+)[ ]?(-?[\d.]+)/g)];
  const points: Array<[number, number]> = [];
  for (const [, command, a, b] of commands) {
    const [x, y] = [Number(a), Number(b)];
    const last = points.at(-1);
    points.push(command === 'M' || !last ? [x, y] : [round(last[0] + x), round(last[1] + y)]);
  }
  return points;
}

describe('the line chart', () => {
  it('writes a path of relative steps that lands exactly on every point', () => {
    const points: Array<[number, number]> = [
      [45, 210],
      [46.3, 205.1],
      [47.5, 205.1],
      [48.8, 210.4],
      [50, 0.1],
      [459.9, 52],
    ];
    const d = pathData(points);
    expect(d).toBe('M45 210l1.3-4.9l1.2 0l1.3 5.3l1.2-210.3l409.9 51.9');
    expect(readPath(d)).toEqual(points);
  });

  it('draws markers by default and a line alone with markers: false, through the same points', () => {
    const options = {
      id: 'c',
      title: 'T',
      yLabel: 'Y',
      xLabel: 'X',
      series: [{ name: 'S', points: Array.from({ length: 30 }, (_, i) => ({ x: `20${10 + i}`, y: i * i })) }],
    };
    const withMarkers = renderLineChart(options);
    const lineOnly = renderLineChart({ ...options, markers: false });
    // Two drawings (wide and narrow), each with 30 points.
    expect(withMarkers.match(/class="point"/g)?.length).toBe(60);
    expect(lineOnly).not.toContain('class="point"');
    const paths = (svg: string) => [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]);
    expect(paths(lineOnly)).toEqual(paths(withMarkers));
    for (const d of paths(lineOnly)) expect(d!.match(/[Ml]/g)?.length).toBe(30);
    expect(lineOnly.length).toBeLessThan(withMarkers.length / 2);
  });
});
