import http from 'node:http';

/**
 * The benches' HTTP client: node:http over keep-alive connections. It costs the bench process a
 * fraction of what global fetch (undici's WHATWG layer) does per request, so that on a machine
 * shared with the server the client is less often the limit. Every request has a deadline.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** How long one request may take before it fails, naming itself. */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface Answer {
  status: number;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface RequestInit {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const target = new URL(url);
  const body = init.body === undefined ? undefined : Buffer.from(init.body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? (body ? 'POST' : 'GET'),
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer from ${init.method ?? 'GET'} ${target.pathname} within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes the idle keep-alive connections (before a server restarts, say). */
export function closeIdle(): void {
  agent.destroy();
}
