// The "application under test": a docs page, served on 127.0.0.1 only.
import { createServer } from 'node:http';

const port = Number(process.env.APP_PORT ?? 4209);
createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>My docs</title><h1>Sorting lines</h1><p>Try it below.</p>');
}).listen(port, '127.0.0.1', () => console.log(`app on http://127.0.0.1:${port}/`));
