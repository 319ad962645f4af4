import { getSecret } from '@aws-lambda-powertools/parameters/secrets';

/**
 * Where the OpenAI-compatible provider's key is: in AWS a Secrets Manager
 * secret the stack names (`OPENAI_API_KEY_SECRET_ARN`, read at run time and
 * cached for five minutes, so a rotated key is picked up without a deploy
 * and the key is never in the template or a function's environment); under
 * `npm start`, the `OPENAI_API_KEY` variable.
 */
export const OPENAI_KEY_VARIABLES = { secretArn: 'OPENAI_API_KEY_SECRET_ARN', value: 'OPENAI_API_KEY' } as const;

const CACHE_SECONDS = 300;

export async function openaiApiKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const arn = env[OPENAI_KEY_VARIABLES.secretArn];
  if (arn) return ((await getSecret<string>(arn, { maxAge: CACHE_SECONDS })) ?? '').trim();
  return env[OPENAI_KEY_VARIABLES.value] ?? '';
}
