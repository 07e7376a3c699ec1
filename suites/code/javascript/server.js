'use strict';

const http = require('node:http');
const { URL } = require('node:url');

const PORT = Number(process.env.PORT || 8080);
const MAX_BODY_BYTES = 1024 * 1024; // 1 MiB

/** In-memory store; replace with a database before this leaves the prototype stage. */
const notes = new Map();
let nextId = 1;

function sendJson(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const routes = {
  'GET /notes': async (_req, res) => {
    sendJson(res, 200, { notes: [...notes.values()] });
  },
  'POST /notes': async (req, res) => {
    let data;
    try {
      data = JSON.parse(await readBody(req));
    } catch (err) {
      const status = err.status || 400;
      return sendJson(res, status, { error: status === 413 ? 'payload too large' : 'invalid JSON' });
    }
    if (typeof data.text !== 'string' || data.text.trim() === '') {
      return sendJson(res, 422, { error: '"text" must be a non-empty string' });
    }
    const note = { id: nextId++, text: data.text.trim(), createdAt: new Date().toISOString() };
    notes.set(note.id, note);
    sendJson(res, 201, note);
  },
  'DELETE /notes/:id': async (_req, res, params) => {
    const id = Number.parseInt(params.id, 10);
    if (!notes.delete(id)) return sendJson(res, 404, { error: `note ${id} not found` });
    res.writeHead(204).end();
  },
};

function match(method, pathname) {
  for (const [key, handler] of Object.entries(routes)) {
    const [m, pattern] = key.split(' ');
    if (m !== method) continue;
    const names = [];
    const re = new RegExp('^' + pattern.replace(/:(\w+)/g, (_, n) => (names.push(n), '([^/]+)')) + '$');
    const found = re.exec(pathname);
    if (found) {
      return { handler, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(found[i + 1])])) };
    }
  }
  return null;
}

const server = http.createServer(async (req, res) => {
  const { pathname } = new URL(req.url, `http://${req.headers.host || 'localhost'}`);
  const route = match(req.method, pathname);
  if (!route) return sendJson(res, 404, { error: `no route for ${req.method} ${pathname}` });
  try {
    await route.handler(req, res, route.params);
  } catch (err) {
    console.error(err);
    sendJson(res, 500, { error: 'internal error' });
  }
});

server.listen(PORT, () => {
  console.log(`notes API listening on http://localhost:${PORT} 🚀`);
});
