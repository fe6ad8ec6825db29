import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ASSETS_DIR, webAssetFilesAt } from '../adapters/fs/web-asset-files.ts';
import { cspHashOf, EMBEDDABLE_SCRIPTS, IMMUTABLE, loadWebAssets, REVALIDATE, VENDOR_FILES, webStaticFiles } from './assets.ts';

const assets = loadWebAssets(webAssetFilesAt());

describe('page scripts', () => {
  const scripts = readdirSync(ASSETS_DIR).filter((f) => f.endsWith('.js'));

  test('there is at least the /docs init script', () => {
    assert.ok(scripts.includes('docs.js'));
  });

  for (const name of scripts) {
    test(`${name}: the CSP hash is SHA-256 of the file's bytes, and the inlined text is those bytes`, () => {
      const bytes = readFileSync(join(ASSETS_DIR, name));
      const script = assets.script(name);
      assert.equal(script.cspHash, `'sha256-${createHash('sha256').update(bytes).digest('base64')}'`);
      assert.ok(Buffer.from(script.source, 'utf8').equals(bytes), 'the text inlined is byte for byte the file');
      assert.match(script.cspHash, /^'sha256-[A-Za-z0-9+/]{43}='$/);
    });
  }

  test('an unknown script name throws', () => {
    assert.throws(() => assets.script('nope.js'), /no page script/);
  });

  test('cspHashOf hashes the UTF-8 bytes of a string', () => {
    assert.equal(
      cspHashOf('alert(1)'),
      `'sha256-${createHash('sha256').update(Buffer.from('alert(1)', 'utf8')).digest('base64')}'`,
    );
    assert.equal(cspHashOf('é'), cspHashOf(Buffer.from([0xc3, 0xa9])));
  });
});

describe('files the HTML parser would change are refused at start', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function folderWith(name: string, content: string | Buffer): string {
    const dir = mkdtempSync(join(tmpdir(), 'openrail-web-'));
    dirs.push(dir);
    for (const f of ['site.css', 'favicon.svg']) writeFileSync(join(dir, f), readFileSync(join(ASSETS_DIR, f)));
    writeFileSync(join(dir, name), content);
    return dir;
  }

  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['CRLF line ends', 'a();\r\nb();\n', /CR/],
    ['a closing script tag', 'const s = "</SCRIPT>";\n', /<\/script/],
    ['a comment opener', 'const s = "<!--";\n', /<!--/],
    ['bytes that are not UTF-8', Buffer.from([0x61, 0xff, 0x0a]), /not UTF-8/],
  ];
  for (const [what, content, error] of cases) {
    test(what, () => {
      assert.throws(() => loadWebAssets(webAssetFilesAt(folderWith('bad.js', content))), error);
    });
  }

  test('a file type with no known content type', () => {
    assert.throws(() => loadWebAssets(webAssetFilesAt(folderWith('notes.txt', 'x'))), /no content type/);
  });
});

describe('static files', () => {
  const files = webStaticFiles(assets);

  test('the stylesheet: a fingerprinted immutable URL and the plain one, revalidated by ETag', () => {
    const bytes = readFileSync(join(ASSETS_DIR, 'site.css'));
    const linked = assets.linked('/assets/site.css');
    const fingerprint = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
    assert.equal(linked.url, `/assets/site.${fingerprint}.css`);
    assert.equal(linked.integrity, `sha384-${createHash('sha384').update(bytes).digest('base64')}`);
    const hashed = files.get(linked.url);
    const plain = files.get('/assets/site.css');
    assert.ok(hashed && plain);
    assert.equal(hashed.contentType, 'text/css; charset=utf-8');
    assert.equal(hashed.cacheControl, IMMUTABLE);
    assert.equal(plain.cacheControl, REVALIDATE);
    assert.ok(hashed.body.equals(bytes) && plain.body.equals(bytes));
    assert.equal(hashed.etag, `"${createHash('sha256').update(bytes).digest('base64url')}"`);
    assert.equal(plain.etag, hashed.etag);
  });

  test('scripts are inlined; only the embeddable ones are served too, as JavaScript, byte for byte', () => {
    const served = [...files.keys()].filter((p) => p.startsWith('/assets/') && p.endsWith('.js'));
    assert.deepEqual(
      served.map((p) => p.replace(/\.[0-9a-f]{16}\.js$/, '.js')).sort(),
      EMBEDDABLE_SCRIPTS.flatMap((name) => [`/assets/${name}`, `/assets/${name}`]).sort(),
    );
    for (const name of EMBEDDABLE_SCRIPTS) {
      const file = files.get(`/assets/${name}`);
      assert.equal(file?.contentType, 'text/javascript; charset=utf-8');
      assert.equal(file?.crossOrigin, true, 'other sites may load it');
      assert.equal(file?.body.toString('utf8'), readFileSync(join(ASSETS_DIR, name), 'utf8'));
    }
  });

  test('of node_modules, only the allow-listed vendor files are served, with their content types', () => {
    const vendorPaths = [...files.keys()].filter((p) => p.startsWith('/docs/'));
    assert.equal(vendorPaths.length, VENDOR_FILES.length * 2);
    for (const vendor of VENDOR_FILES) {
      const served = files.get(vendor.path);
      assert.ok(served, vendor.path);
      const onDisk = readFileSync(join('node_modules', vendor.packageName, vendor.file));
      assert.ok(served.body.equals(onDisk), `${vendor.path} is the package's file`);
      assert.ok(files.get(assets.linked(vendor.path).url)?.body.equals(onDisk));
    }
    assert.equal(files.get('/docs/assets/swagger-ui-bundle.js')?.contentType, 'text/javascript; charset=utf-8');
    assert.equal(files.get('/docs/assets/swagger-ui.css')?.contentType, 'text/css; charset=utf-8');
    assert.ok(![...files.keys()].some((p) => p.endsWith('.map') || p.endsWith('.html')));
  });
});

describe('the vendor files are read again by their first request', () => {
  /** The installed files, with every read of a package file counted, and the package replaceable. */
  const counted = () => {
    const real = webAssetFilesAt();
    const state = { reads: 0, replaced: false };
    const source = {
      ...real,
      packageFile(packageName: string, file: string) {
        state.reads += 1;
        return state.replaced ? Buffer.from('/* another version */\n') : real.packageFile(packageName, file);
      },
    };
    return { state, assets: loadWebAssets(source) };
  };

  test('fingerprinted at the start, the bytes read again once and kept', () => {
    const { state, assets: loaded } = counted();
    assert.equal(state.reads, VENDOR_FILES.length, 'each read once at the start, to fingerprint it');
    const vendor = VENDOR_FILES[0];
    assert.ok(vendor);
    const files = webStaticFiles(loaded);
    const onDisk = readFileSync(join('node_modules', vendor.packageName, vendor.file));
    assert.ok(files.get(vendor.path)?.body.equals(onDisk));
    assert.equal(state.reads, VENDOR_FILES.length + 1);
    assert.ok(files.get(loaded.linked(vendor.path).url)?.body.equals(onDisk), 'both addresses share the bytes');
    assert.equal(state.reads, VENDOR_FILES.length + 1, 'kept once read');
    assert.equal(files.get(vendor.path)?.etag, `"${createHash('sha256').update(onDisk).digest('base64url')}"`);
  });

  test('a package replaced under the running service is refused, not served under the old fingerprint', () => {
    const { state, assets: loaded } = counted();
    state.replaced = true;
    const vendor = VENDOR_FILES[0];
    assert.ok(vendor);
    assert.throws(() => webStaticFiles(loaded).get(vendor.path)?.body, /changed on disk since the service started/);
  });
});
