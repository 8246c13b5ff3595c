import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { CHROMIUM_PATH, HAVE_SHARED_DATA, REPO_ROOT, SHARED_DATA } from './paths.ts';

/**
 * What some test files need beyond Node and npm: the publishers' real files (../shared/data),
 * Debian's redis-server, radosgw (with ceph-mon and ceph-osd), chromium, python3-pandas and nginx
 * (.ci/run installs them). When one is
 * absent, vitest.config.ts leaves out the test files that need it and the run says so in one line
 * per missing thing; the rest still runs. nginx is needed by one test of a file whose other tests
 * do not need it: there that test skips itself (`it.skipIf(!HAVE_NGINX)`), and the line is said all
 * the same. A test file needs a prerequisite when its code names one of that
 * prerequisite's readers (helpers and their exports); test/unit/test-prerequisites.test.ts fails
 * when a helper under test/ uses a reader without being listed, so a new one cannot be forgotten.
 * MMDS_TEST_WITHOUT=redis-server,radosgw,chromium,python3-pandas,nginx (tests only) makes a run behave
 * as if they were absent.
 */
export interface Prerequisite {
  name: 'shared-data' | 'redis-server' | 'radosgw' | 'chromium' | 'python3-pandas' | 'nginx';
  present: boolean;
  /** `tests`: the files stay in the run and skip the tests that need it themselves. */
  leaves?: 'files' | 'tests';
  /** Helper modules and the exports of theirs that need it. */
  readers: Readonly<Record<string, readonly string[]>>;
  /** The one line a run prints when it is absent, given how many test files are left out. */
  notice(skipped: number): string;
}

/** "1 test file that reads … is skipped", "3 test files that read … are skipped". */
function skippedFiles(
  count: number,
  noun: string,
  [one, many]: readonly [string, string] = ['', ''],
): string {
  const words = count === 1 ? [noun, one, 'is skipped'] : [`${noun}s`, many, 'are skipped'];
  return [String(count), ...words].filter((word) => word !== '').join(' ');
}

const without = new Set((process.env.MMDS_TEST_WITHOUT ?? '').split(',').map((name) => name.trim()));

function installed(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** Debian's nginx, which two tests run the generated dist/nginx.conf in. */
export const HAVE_NGINX = !without.has('nginx') && installed('/usr/sbin/nginx', ['-v']);

export const PREREQUISITES: readonly Prerequisite[] = [
  {
    name: 'shared-data',
    present: HAVE_SHARED_DATA,
    readers: {
      'test/helpers/paths.ts': ['SHARED_DATA'],
      'test/helpers/snapshot-fixture.ts': ['REAL_DATA_STEPS', 'createRealSnapshot'],
      'test/helpers/publisher-apis-bls-data.ts': ['readRecordedBlsResponse', 'readRealBlsSeries'],
      'test/helpers/publisher-apis-bls.ts': ['createBlsApiEmulator'],
      'test/helpers/publisher-apis-fred-data.ts': ['readRealPayemsVintages'],
      'test/helpers/publisher-apis.ts': [
        'readRealBlsSeries',
        'readRealPayemsVintages',
        'createBlsApiEmulator',
      ],
      'test/e2e/pipeline/update-publisher.ts': ['startUpdatePublisher'],
      'test/e2e/pipeline/corrected-legacy.ts': ['writeCorrectedLegacy'],
      'test/helpers/cot-analytics-oracle.ts': ['LAYOUTS'],
      'test/helpers/webhook-chaos.ts': ['runWebhookChaos'],
    },
    notice: (skipped) =>
      `${process.env.MMDS_SHARED_DATA ? SHARED_DATA.slice(0, -1) : '../shared/data'} not found: ` +
      skippedFiles(skipped, 'test file', [
        "that reads the publishers' files",
        "that read the publishers' files",
      ]),
  },
  {
    name: 'redis-server',
    present: !without.has('redis-server') && installed('redis-server', ['--version']),
    readers: {
      'test/helpers/redis-server.ts': ['startRedis'],
      'test/helpers/webhook-chaos.ts': ['runWebhookChaos'],
    },
    notice: (skipped) =>
      `redis-server not installed (apt-get install redis-server, or run .ci/run): ${skippedFiles(skipped, 'test file', ['that starts Redis', 'that start Redis'])}`,
  },
  {
    name: 'radosgw',
    present:
      !without.has('radosgw') &&
      ['radosgw', 'ceph-mon', 'ceph-osd'].every((daemon) => installed('which', [daemon])),
    readers: { 'test/helpers/radosgw.ts': ['startRadosGateway'] },
    notice: (skipped) =>
      `radosgw not installed (apt-get install radosgw ceph-mon ceph-osd, or run .ci/run): ${skippedFiles(skipped, 'test file', ['that starts an S3 server', 'that start an S3 server'])}`,
  },
  {
    name: 'chromium',
    present: !without.has('chromium') && existsSync(CHROMIUM_PATH),
    readers: { 'test/e2e/site/launch-chromium.ts': ['launchChromium'] },
    notice: (skipped) =>
      `${CHROMIUM_PATH} not found (apt-get install chromium, or run .ci/run): ${skippedFiles(skipped, 'browser test file')}`,
  },
  {
    // Debian's python3 with its python3-pandas (not a pyenv python3 earlier in PATH).
    name: 'python3-pandas',
    present: !without.has('python3-pandas') && installed('/usr/bin/python3', ['-c', 'import pandas']),
    readers: { 'test/e2e/python/run-python.ts': ['runSystemPython'] },
    notice: (skipped) =>
      `/usr/bin/python3 cannot import pandas (apt-get install python3-pandas, or run .ci/run): ${skippedFiles(skipped, 'test file', ['that runs the Python example', 'that run the Python example'])}`,
  },
  {
    name: 'nginx',
    present: HAVE_NGINX,
    leaves: 'tests',
    readers: { 'scripts/bench/nginx.ts': ['startMmdsNginx'] },
    notice: (skipped) =>
      `/usr/sbin/nginx not found (apt-get install nginx, or run .ci/run): the nginx.conf ${skipped === 1 ? 'test of 1 test file is' : `tests of ${skipped} test files are`} skipped`,
  },
];

/** Matches a source text that uses one of a prerequisite's readers. */
function readerPattern(prerequisite: Prerequisite): RegExp {
  return new RegExp(`\\b(${[...new Set(Object.values(prerequisite.readers).flat())].join('|')})\\b`);
}

/** Whether a source text uses one of the prerequisite's readers (in its code, not in a comment). */
export function needs(prerequisite: Prerequisite, text: string): boolean {
  return readerPattern(prerequisite).test(text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, ''));
}

/** Every TypeScript file under test/, relative to the repository root, with forward slashes. */
export function listTestSources(): string[] {
  return readdirSync(join(REPO_ROOT, 'test'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** The test files (`*.test.ts`) that need the prerequisite, relative to the repository root. */
export function listTestsNeeding(prerequisite: Prerequisite): string[] {
  return listTestSources().filter(
    (file) => file.endsWith('.test.ts') && needs(prerequisite, readFileSync(join(REPO_ROOT, file), 'utf8')),
  );
}

/** The test files to leave out of this run, and one line per missing prerequisite. */
export function missingPrerequisites(): { exclude: string[]; notices: string[] } {
  const exclude: string[] = [];
  const notices: string[] = [];
  for (const prerequisite of PREREQUISITES) {
    if (prerequisite.present) continue;
    const files = listTestsNeeding(prerequisite);
    if (prerequisite.leaves !== 'tests') exclude.push(...files);
    notices.push(prerequisite.notice(files.length));
  }
  return { exclude: [...new Set(exclude)], notices };
}
