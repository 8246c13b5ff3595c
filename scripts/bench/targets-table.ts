/**
 * The targets of one issue from a results file of a partial run (`npm run bench -- --sections …
 * --out <file>`, which leaves BENCHMARKS.md alone), as a Markdown section to add to
 * BENCHMARKS.md under "Later runs": the run's date, commit, machine and load, and each target
 * measured with its figure and what limits a missed one.
 *
 *   node scripts/bench/targets-table.ts <results.json> <33|38>
 */
import { readFileSync } from 'node:fs';
import { answerPathTargets, type BenchResults, eventTargets, type TargetCheck, table } from './report.ts';

const [file, issue] = process.argv.slice(2);
const pick: Record<string, (r: BenchResults) => TargetCheck[]> = {
  '33': answerPathTargets,
  '38': (r) => eventTargets(r.event_latency),
};
if (!file || !issue || !pick[issue]) {
  process.stderr.write('usage: node scripts/bench/targets-table.ts <results.json> <33|38>\n');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
const checks = pick[issue](results).filter((check) => check.status !== 'not measured');
const limits = checks.filter((check) => check.status === 'missed' && check.limit);
process.stdout.write(`### Issue ${issue}: run of ${results.date.slice(0, 16).replace('T', ' ')} UTC${results.commit ? `, commit ${results.commit.slice(0, 7)}` : ''}

A partial run of \`npm run bench\` (the sections these targets need), ${results.duration_s} s. Machine: ${results.machine.nproc} cores (${results.machine.cpu_model}), ${results.machine.memory_gb} GB. Load average ${results.machine.load_average_at_start.join(' / ')} at the start; ${results.load_average.map((l) => `${l.load.toFixed(1)} after ${l.after}`).join(', ')}.

${table(
  ['target', 'goal', 'measured', 'result'],
  checks.map((check) => [
    check.name,
    check.goal,
    check.measured,
    check.goal === 'no target' ? 'reported' : check.status === 'met' ? 'met' : '**missed**',
  ]),
)}
${limits.length ? `\n${limits.map((check) => `- **${check.name}**: ${check.limit}`).join('\n')}\n` : ''}`);
