export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type CredentialProvider = () => Promise<AwsCredentials>;

/**
 * The Lambda runtime puts the function role's credentials in the
 * environment; so do the local stack and the tests. The operator CLI, which
 * also needs profiles and SSO, passes the SDK's provider chain instead.
 */
export const envCredentials: CredentialProvider = async () => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('AWS credentials are not in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
  return { accessKeyId, secretAccessKey, sessionToken: process.env.AWS_SESSION_TOKEN || undefined };
};

/**
 * For an emulator endpoint: the environment's credentials when there are
 * some (LocalStack picks its account from the access key), else fixed ones,
 * which DynamoDB Local (run with -sharedDb) and fauxqs accept.
 */
export const localCredentials: CredentialProvider = async () =>
  process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY ? envCredentials() : { accessKeyId: 'local', secretAccessKey: 'local' };
