/**
 * The Node limit of the benchmark: a bare node:http server that answers every request with
 * the same bytes from memory (one file read at start), no routing, no logging. Run by
 * run-bench.ts as a child process, like `mmds serve`:
 *
 *   node scripts/bench/bare-server.ts <file> [content-type]
 *
 * Listens on a free loopback port and prints `listening <port>` on stdout.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [file, contentType = 'application/json; charset=utf-8'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/bench/bare-server.ts <file> [content-type]\n');
  process.exit(2);
}
const body = readFileSync(file);
const headers = { 'Content-Type': contentType, 'Content-Length': String(body.length) };
const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
