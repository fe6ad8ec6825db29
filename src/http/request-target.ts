/**
 * The path and query of a request, whatever form its request line took. RFC 9112 §3.2.2: a
 * server must accept the absolute form (`POST http://host/credential HTTP/1.1`) as well as the
 * origin form (`POST /credential`); the host it names is ignored, since every address of this
 * service derives from PUBLIC_URL.
 */
export function requestTarget(url: string): { path: string; query: string } {
  let path = url;
  if (!url.startsWith('/')) {
    try {
      const parsed = new URL(url);
      path = `${parsed.pathname}${parsed.search}`;
    } catch {
      path = '/';
    }
  }
  const q = path.indexOf('?');
  return q === -1 ? { path, query: '' } : { path: path.slice(0, q), query: path.slice(q) };
}
