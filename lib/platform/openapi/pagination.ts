import * as z from 'zod';
import { withExample } from '../http/common-schemas.js';

/**
 * The service's three shapes of a page, each stated in the same words on the
 * list schema, on every operation that answers it (operations.ts adds the
 * sentence to its description) and in the document's guide to them.
 */
export type PageKind = 'v1' | 'v2' | 'numbered';

interface PageShape {
  kind: PageKind;
  /** The key of the items, unless `data`. */
  items?: string;
  limit?: true;
  sentence: string;
}

const SHAPES = new WeakMap<z.ZodType, PageShape>();

const KIND_NAMES: Record<PageKind, string> = { v1: 'a v1 cursor page', v2: 'a v2 cursor page', numbered: 'a numbered page' };

const sentenceOf = (kind: PageKind, shape: string): string =>
  `Pagination: ${KIND_NAMES[kind]}, \`${shape}\`. ` +
  {
    v1: 'To go on, send `next_cursor` back as `cursor` (with the same filters); `has_more` says whether more items exist now.',
    v2: 'To go on, send `page.next_cursor` back as `cursor` (with the same filters); `page.has_more` says whether more items exist now.',
    numbered: 'To go on, ask for `page` + 1 while `pagination.has_next` is true; `pagination.total_count` counts every item the filters select.',
  }[kind];

const shaped = <S extends z.ZodObject>(schema: S, shape: Omit<PageShape, 'sentence'> & { id: string }): S => {
  const { id, ...known } = shape;
  const sentence = sentenceOf(known.kind, shapeOf(known));
  const page = schema.meta({ id, description: sentence });
  SHAPES.set(page, { ...known, sentence });
  return page;
};

/** `{workflows, next_cursor, has_more, limit}`. */
const shapeOf = ({ kind, items, limit }: Omit<PageShape, 'sentence'>): string =>
  ({
    v1: `{${items}, next_cursor, has_more${limit ? ', limit' : ''}}`,
    v2: '{data, page: {has_more, next_cursor}}',
    numbered: `{${items}, pagination: {page, limit, total_count, total_pages, has_next, has_prev}}`,
  })[kind];

const exampleOf = (schema: z.ZodType): unknown => (z.globalRegistry.get(schema)?.examples as unknown[] | undefined)?.[0];

/** `{<items>: [...], next_cursor, has_more}`, and `limit`, the page size, where `limit` is set. Its example: the item's, alone on its page. */
export function v1Page(items: string, item: z.ZodType, options: { id: string; limit?: true; itemsDescription?: string }): z.ZodObject {
  const list = z.array(item);
  const page = shaped(
    z.object({
      [items]: options.itemsDescription ? list.meta({ description: options.itemsDescription }) : list,
      next_cursor: z.string().nullable().meta({ description: 'The cursor of the next page; null after the last.' }),
      has_more: z.boolean(),
      ...(options.limit ? { limit: z.number().int().meta({ description: 'The page size used.' }) } : {}),
    }),
    { kind: 'v1', items, ...(options.limit ? { limit: true } : {}), id: options.id },
  );
  return withExample(page, { [items]: [exampleOf(item)], next_cursor: null, has_more: false, ...(options.limit ? { limit: 20 } : {}) });
}

/** `{data: [...], page: {has_more, next_cursor}}`. Its example: the item's, alone on its page. */
export function v2Page(item: z.ZodType, options: { id: string; itemsDescription?: string; nextCursorDescription?: string }): z.ZodObject {
  const list = z.array(item);
  const page = shaped(
    z.object({
      data: options.itemsDescription ? list.meta({ description: options.itemsDescription }) : list,
      page: z.object({
        has_more: z.boolean(),
        next_cursor: z
          .string()
          .nullable()
          .meta({ description: options.nextCursorDescription ?? 'The cursor of the next page; null after the last.' }),
      }),
    }),
    { kind: 'v2', id: options.id },
  );
  return withExample(page, { data: [exampleOf(item)], page: { has_more: false, next_cursor: null } });
}

/** A page numbered from 1, `{<items>, pagination: {page, limit, total_count, total_pages, has_next, has_prev}}`: `schema` states it. */
export const numberedPage = <S extends z.ZodObject>(schema: S, items: string, id: string): S => shaped(schema, { kind: 'numbered', items, id });

/** The page shape `schema` answers, if it is a page. */
export const pageShapeOf = (schema: z.ZodType | undefined): PageShape | undefined => (schema ? SHAPES.get(schema) : undefined);

/** The document's guide: the three shapes, and which operations answer each (with the key of their items). */
export function paginationGuide(lists: ReadonlyArray<{ operationId: string; shape: PageShape }>): string {
  const kinds: PageKind[] = ['v1', 'v2', 'numbered'];
  const generic = (kind: PageKind) => `\`${shapeOf({ kind, items: '<items>' })}\`${kind === 'v1' ? ' (some with `limit`, the page size)' : ''}`;
  const entry = ({ operationId, shape }: { operationId: string; shape: PageShape }) =>
    `\`${operationId}\`${shape.items ? ` (\`${shape.items}\`${shape.limit ? ', with `limit`' : ''})` : ''}`;
  const lines = kinds.map(
    (kind) =>
      `- **${KIND_NAMES[kind]}**, ${generic(kind)}: ${lists
        .filter((list) => list.shape.kind === kind)
        .map(entry)
        .join(', ')}.`,
  );
  return ['## Pagination', 'Each list answers one of three page shapes; its operation and its schema say which.', lines.join('\n')].join('\n\n');
}
