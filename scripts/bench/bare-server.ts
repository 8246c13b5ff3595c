/**
 * The Node limit of the benchmark: a bare node:http server that answers every request with
 * the same bytes from memory (one file read at start), no routing, no logging. Run by
 * run-bench.ts as a child process, like `mmds serve`:
 *
 *   node scripts/bench/bare-server.ts <file> [content-type]
 *   node scripts/bench/bare-server.ts <file> --fields <json file> [--not-modified <json file>]
 *
 * With --fields it sends, instead of Content-Type and Content-Length alone, the header fields of
 * a JSON object (those another server sent with the same body, as recorded by run-bench.ts): what
 * sending them costs, with none of the work of computing them. With --not-modified, a request
 * whose If-None-Match is that object's ETag is answered 304 with its fields, and no body.
 *
 * Listens on a free loopback port and prints `listening <port>` on stdout.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [file, second = 'application/json; charset=utf-8', fieldsFile, third, notModifiedFile] =
  process.argv.slice(2);
if (
  !file ||
  (second === '--fields' && !fieldsFile) ||
  (third !== undefined && (third !== '--not-modified' || !notModifiedFile))
) {
  process.stderr.write(
    'usage: node scripts/bench/bare-server.ts <file> [content-type | --fields <json file> [--not-modified <json file>]]\n',
  );
  process.exit(2);
}
const readFields = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
const body = readFileSync(file);
const headers: Record<string, string> =
  second === '--fields'
    ? readFields(fieldsFile!)
    : { 'Content-Type': second, 'Content-Length': String(body.length) };
const notModified = notModifiedFile ? readFields(notModifiedFile) : null;
const etag = notModified?.etag ?? null;
const server = createServer((request, response) => {
  if (etag !== null && request.headers['if-none-match'] === etag) {
    response.writeHead(304, notModified!);
    response.end();
    return;
  }
  response.writeHead(200, headers);
  response.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
