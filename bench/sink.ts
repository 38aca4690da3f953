// The reference server for the upload benchmark: a minimal Node streaming sink. It writes the request body as it
// arrives to a temp file and answers {bytes}. POST /fsync makes it durable first the way Chute must (fsync of the
// file, rename, fsync of the folder); POST /nofsync answers as soon as the bytes are handed to the kernel.
// It does not parse the multipart framing (a few hundred bytes per request): it is the ceiling of Node + this disk.
// It is also the bare Node reference of the small requests: GET /go/<anything> answers a 302, GET /small the bytes of
// <small-file> (read once at start), as fast as Node's http module can.
//   node --import tsx bench/sink.ts <port> <folder> [<small-file>]
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { receiveBody } from './lib/sink-receive.js';

const [portArg, dir, smallFile] = process.argv.slice(2);
if (!portArg || !dir) {
  console.error('usage: sink.ts <port> <folder>');
  process.exit(2);
}

const small = smallFile ? readFileSync(smallFile) : Buffer.alloc(0);

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200).end('ok');
    return;
  }
  if (req.method === 'GET' && req.url?.startsWith('/go/')) {
    res.writeHead(302, { location: 'https://example.com/bench' }).end();
    return;
  }
  if (req.method === 'GET' && req.url === '/small') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': small.length }).end(small);
    return;
  }
  const mode = req.url === '/fsync' ? true : req.url === '/nofsync' ? false : null;
  if (req.method !== 'POST' || mode === null) {
    res.writeHead(404).end();
    return;
  }
  receiveBody(req, dir, mode).then(
    (bytes) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes }));
    },
    (err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
    },
  );
});
server.keepAliveTimeout = 72_000;
server.listen(Number(portArg), '127.0.0.1');
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
