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
  /** The answer's headers, names in lower case. */
  headers: http.IncomingHttpHeaders;
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
  const method = init.method ?? (body ? 'POST' : 'GET');
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
    };
    const fail = (err: Error) => settle(() => reject(err));
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          settle(() =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T }),
          );
        });
        // A connection that ends before the body does (the server died, say) fails the request.
        res.on('close', () => fail(new Error(`${method} ${target.pathname}: the connection closed before the answer ended`)));
      },
    );
    // One deadline for the whole exchange, whatever the socket does meanwhile.
    const deadline = setTimeout(() => {
      fail(new Error(`no answer from ${method} ${target.pathname} within ${REQUEST_TIMEOUT_MS / 1000} s`));
      req.destroy();
    }, REQUEST_TIMEOUT_MS);
    req.on('error', fail);
    req.on('close', () => fail(new Error(`${method} ${target.pathname}: the connection closed without an answer`)));
    req.end(body);
  });
}
