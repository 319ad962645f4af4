import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';

// Only the body's shape: what makes the files a harness is checked by the use case
// (lib/harnesses/harness-files.ts), so that every offending path is named at once.
export const CreateHarnessBody = withExample(
  z
    .strictObject({
      name: z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' }),
      files: z
        .array(
          z
            .strictObject({
              path: z
                .string()
                .meta({ description: 'Relative to the harness root, `/`-separated: no leading `/`, no `..`, `.` or empty segment, at most 256 bytes.' }),
              content: z.string().meta({ description: 'Text, at most 256 KiB of UTF-8.' }),
            })
            .meta({ id: 'HarnessFile' }),
        )
        .meta({ description: 'At most 100 files and 1 MiB in all; `harness.json` at the root.' }),
    })
    .meta({ id: 'CreateHarnessRequest' }),
  {
    name: 'Support assistant',
    files: [
      { path: 'harness.json', content: '{"model": "local/echo", "instructions": "instructions.md", "tools": [{"name": "ask_user"}]}' },
      { path: 'instructions.md', content: 'You are a friendly support assistant. Ask the user when a ticket is unclear.' },
    ],
  },
);

export const ListHarnessesQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`page.next_cursor` of the previous page.' }),
});
