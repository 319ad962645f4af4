import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TemplateJson } from './assembly.js';

interface Statement {
  Action: string | string[];
}

/**
 * A copy of a cloud assembly (templates copied, asset folders linked) whose
 * function described `description` has lost `action` from its role's
 * policies: a deliberately broken deployment for the smoke suite.
 */
export function copyAssemblyWithout(dir: string, without: { description: string; action: string }): { dir: string; remove(): void } {
  const copy = mkdtempSync(join(tmpdir(), 'wfs-broken-'));
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isDirectory()) symlinkSync(join(dir, name), join(copy, name));
    else copyFileSync(join(dir, name), join(copy, name));
  }
  const edited = readdirSync(copy)
    .filter((name) => name.endsWith('.template.json'))
    .some((name) => {
      const template = JSON.parse(readFileSync(join(copy, name), 'utf8')) as TemplateJson;
      const fn = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Description === without.description);
      if (!fn) return false;
      const roleId = fn.Properties?.Role?.['Fn::GetAtt']?.[0] as string;
      for (const policy of Object.values(template.Resources)) {
        if (policy.Type !== 'AWS::IAM::Policy' || !JSON.stringify(policy.Properties?.Roles).includes(`"${roleId}"`)) continue;
        const document = policy.Properties!.PolicyDocument as { Statement: Statement[] };
        document.Statement = document.Statement.flatMap((s) => {
          const actions = [s.Action].flat().filter((a) => a !== without.action);
          return actions.length === 0 ? [] : [{ ...s, Action: actions.length === 1 ? actions[0]! : actions }];
        });
      }
      writeFileSync(join(copy, name), JSON.stringify(template));
      return true;
    });
  if (!edited) throw new Error(`No function described ${without.description} in ${dir}.`);
  return { dir: copy, remove: () => rmSync(copy, { recursive: true, force: true }) };
}
