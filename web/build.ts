import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { buildSync } from 'esbuild';
import { ENCODING_SUFFIX, type Encoding, MANIFEST_FILE, type WebFile, type WebManifest } from '#pages/model.js';

/**
 * Builds what lib/pages serves: the console (web/console, Preact, bundled by
 * esbuild into one script and one stylesheet), the API reference page
 * (Scalar's standalone bundle, started by web/docs/main.ts) and their two
 * HTML pages, content-hashed under /assets/, with a manifest of every path.
 * The CDK stack ships the result in the bundles of the page functions
 * (compressed, infra/service-functions.ts); `npm start` builds it on start.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Scripts from the service's own origin only; nothing from another origin at all. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Scalar's components set styles at run time (Vue style bindings and
 * injected <style> elements), which a style-src without 'unsafe-inline'
 * blocks; scripts stay our origin's only.
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface WebBuildOptions {
  /** Writes `.br` and `.gz` beside each file (seconds of brotli at its best); `npm start` skips it. */
  compress: boolean;
}

const hashOf = (content: Buffer | string, length = 16) => createHash('sha256').update(content).digest('hex').slice(0, length);

function contentTypeOf(file: string): string {
  const type = CONTENT_TYPES[file.slice(file.lastIndexOf('.'))];
  if (!type) throw new Error(`web/build.ts: no content type for ${file}`);
  return type;
}

const page = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${title}</title><link rel="icon" href="data:,">${head}</head><body>${body}</body></html>\n`;

function compressed(content: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: content.length } })
    : gzipSync(content, { level: 9 });
}

/** Builds into `outDir` (emptied first) and answers its manifest. */
export function buildWeb(outDir: string, options: WebBuildOptions, root: string = ROOT): WebManifest {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: { console: 'web/console/main.tsx', docs: 'web/docs/main.ts' },
    outdir: join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    minify: true,
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const outputOf = (entry: string) => {
    const found = outputs.find(([, output]) => output.entryPoint === entry);
    if (!found) throw new Error(`web/build.ts: esbuild wrote nothing for ${entry}`);
    return { js: `/${relative(outDir, join(root, found[0]))}`, css: found[1].cssBundle ? `/${relative(outDir, join(root, found[1].cssBundle))}` : undefined };
  };
  const consoleAssets = outputOf('web/console/main.tsx');
  const docsAssets = outputOf('web/docs/main.ts');
  const scalar = readFileSync(join(root, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js'));
  const scalarPath = `/assets/scalar-${hashOf(scalar, 8)}.js`;
  writeFileSync(join(outDir, scalarPath), scalar);

  const pages: Record<string, { file: string; csp: string; html: string }> = {
    '/': {
      file: 'console.html',
      csp: CONSOLE_CSP,
      html: page(
        'Workflow service console',
        `${consoleAssets.css ? `<link rel="stylesheet" href="${consoleAssets.css}">` : ''}<script type="module" src="${consoleAssets.js}"></script>`,
        '<div id="app"></div><noscript>The console needs JavaScript.</noscript>',
      ),
    },
    '/docs': {
      file: 'docs.html',
      csp: DOCS_CSP,
      html: page(
        'Workflow service API reference',
        `<script defer src="${scalarPath}"></script><script type="module" src="${docsAssets.js}"></script>`,
        '<div id="app"></div><noscript>The API reference needs JavaScript; the document itself is <a href="/openapi.json">/openapi.json</a>.</noscript>',
      ),
    },
  };
  for (const { file, html } of Object.values(pages)) writeFileSync(join(outDir, file), html);

  const encodings: Encoding[] = options.compress ? ['br', 'gzip'] : [];
  const describe = (file: string, extra: Partial<WebFile>): WebFile => {
    const content = readFileSync(join(outDir, file));
    for (const encoding of encodings) writeFileSync(join(outDir, file + ENCODING_SUFFIX[encoding]), compressed(content, encoding));
    return { file, contentType: contentTypeOf(file), etag: `"${hashOf(content)}"`, encodings, immutable: false, ...extra };
  };
  const files: Record<string, WebFile> = {};
  for (const [path, { file, csp }] of Object.entries(pages)) files[path] = describe(file, { csp });
  for (const name of readdirSync(join(outDir, 'assets')).filter((name) => !/\.(br|gz)$/.test(name))) {
    files[`/assets/${name}`] = describe(`assets/${name}`, { immutable: true });
  }
  const manifest: WebManifest = { files };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Every file the build reads, so a change to any of them makes a new build. */
function inputFiles(): string[] {
  const walk = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
          entry.name === 'node_modules' ? [] : entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
        )
      : [];
  const versions = ['@scalar/api-reference', 'preact', 'openapi-fetch', 'eventsource-parser']
    .map((name) => join(ROOT, 'node_modules', name, 'package.json'))
    .filter((file) => existsSync(file));
  return [...walk(join(ROOT, 'web')), ...walk(join(ROOT, 'clients', 'typescript', 'src')), join(ROOT, 'lib', 'pages', 'model.ts'), ...versions].sort();
}

/**
 * The build for the tree as it is, made once per change of its inputs and
 * kept under node_modules/.cache: test files, `npm start` and synthesis share it.
 * Built aside and renamed into place, so processes building at once never see half a build.
 */
export function webBuild(options: WebBuildOptions): string {
  const hash = createHash('sha256');
  for (const file of inputFiles()) hash.update(relative(ROOT, file)).update(readFileSync(file));
  const dir = join(ROOT, 'node_modules', '.cache', 'workflow-service-web', `${hash.digest('hex').slice(0, 16)}${options.compress ? '-compressed' : ''}`);
  if (existsSync(join(dir, MANIFEST_FILE))) return dir;
  const partial = `${dir}.${process.pid}.${Date.now()}`;
  buildWeb(partial, options);
  try {
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!(existsSync(join(dir, MANIFEST_FILE)) && statSync(dir).isDirectory())) throw error;
  }
  return dir;
}
