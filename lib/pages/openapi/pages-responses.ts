import * as z from 'zod';
import type { HeadersDoc, ResponseDoc } from '#platform/http/contract.js';

const string = (description: string) => ({ description, schema: { type: 'string' } }) as const;

const VALIDATOR: HeadersDoc = {
  ETag: string('A strong validator of the content: send it back as `If-None-Match` to be answered 304.'),
  Vary: string('`Accept-Encoding`.'),
};

/** 200 of `GET /` and `GET /docs`. */
export const HtmlPage = (what: string): ResponseDoc => ({
  description: `${what}, an HTML page. Served with a Content-Security-Policy that allows scripts from this origin only, and revalidated on every load (\`Cache-Control: no-cache\`).`,
  headers: {
    ...VALIDATOR,
    'Content-Security-Policy': string("`script-src 'self'`, `connect-src 'self'`, no frames, nothing from another origin."),
    'Cache-Control': string('`no-cache`.'),
  },
  mediaType: 'text/html',
  schema: z.string().meta({
    description: 'The page: a shell that loads its content-hashed script and stylesheet from `/assets/`.',
    example:
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>…</title><script type="module" src="/assets/console-ABCD1234.js"></script></head><body><div id="app"></div></body></html>',
  }),
});

/** 200 of `GET /assets/{file}`. */
export const Asset: ResponseDoc = {
  description:
    'The file, compressed (`Content-Encoding: br` or `gzip`) when `Accept-Encoding` allows. Its name carries its content hash, so it is cached for a year (`Cache-Control: public, max-age=31536000, immutable`).',
  headers: {
    ...VALIDATOR,
    'Cache-Control': string('`public, max-age=31536000, immutable`.'),
    'Content-Encoding': string('`br` or `gzip`, when the client takes one.'),
  },
  mediaType: 'text/javascript',
  schema: z.string().meta({ description: 'A script (or a stylesheet, `text/css`).', example: 'import{h as e}from"…";' }),
  alternatives: { 'text/css': z.string().meta({ description: 'A stylesheet.', example: 'body{margin:0}' }) },
};

export const NOT_MODIFIED = { description: 'The client holds this version already (`If-None-Match`): no body.' } as const;
