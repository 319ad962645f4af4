import type { Schemas } from '@workflow-service/client';
import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { api } from '../api';
import { Confirm } from '../components/Confirm';
import { Pager } from '../components/Pager';
import { Problem } from '../components/Problem';
import { ShownOnce } from '../components/ShownOnce';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { usePaged } from '../paged';
import { consoleTokenId, forgetToken, mintToken } from '../session';
import { useStore } from '../store';

type Token = Schemas['ApiToken'];

const LIFETIMES: Array<[number, string]> = [
  [60, '1 hour'],
  [24 * 60, '1 day'],
  [30 * 24 * 60, '30 days'],
  [365 * 24 * 60, '1 year'],
];

function MintForm({ onMinted }: { onMinted: () => void }) {
  const [name, setName] = useState('');
  const [minutes, setMinutes] = useState(60);
  const [secret, setSecret] = useState<string>();
  const [busy, error, run] = useAction();
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      setSecret((await mintToken(name.trim(), minutes)).token);
      setName('');
      onMinted();
    });
  };
  if (secret) return <ShownOnce label="Your new token" value={secret} onDone={() => setSecret(undefined)} />;
  return (
    <form class="card row" onSubmit={submit}>
      <label class="grow">
        Token name
        <input value={name} required maxLength={100} placeholder="e.g. CI deploys" onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Lifetime
        <select value={minutes} onChange={(e) => setMinutes(Number(e.currentTarget.value))}>
          {LIFETIMES.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Mint token
      </button>
      <div class="full">
        <Problem error={error} />
      </div>
    </form>
  );
}

/** Tokens: mint one (shown once), the live ones, and revoke. */
export function TokensPage() {
  const tokens = usePaged<Token>(async (cursor) => {
    const { data } = await api.GET('/v1/api-tokens', { params: { query: { limit: 50, cursor } } });
    return { items: data.tokens, next: data.next_cursor };
  });
  const [revoking, setRevoking] = useState<Token>();
  const own = useStore(consoleTokenId);
  return (
    <section>
      <h2>Tokens</h2>
      <p class="muted">
        A token is the whole account: it can start runs, read every run and mint more tokens. Anyone holding it can use it until it expires or you revoke it.
      </p>
      <MintForm onMinted={tokens.reload} />
      <Table
        caption="Live tokens"
        showCaption
        rows={tokens.items}
        columns={[
          {
            label: 'Name',
            cell: (t) => (
              <>
                {t.name}
                {t.id === own && <span class="tag">this console</span>}
              </>
            ),
          },
          { label: 'Created', cell: (t) => <Time value={t.created_at} /> },
          { label: 'Expires', cell: (t) => <Time value={t.expires_at} /> },
          {
            label: '',
            cell: (t) => (
              <button type="button" class="danger small" onClick={() => setRevoking(t)}>
                Revoke
              </button>
            ),
          },
        ]}
      />
      <Pager list={tokens} empty="No live tokens." />
      {revoking && (
        <Confirm
          title="Revoke this token?"
          action="Revoke token"
          onClose={() => setRevoking(undefined)}
          onConfirm={async () => {
            await api.POST('/v1/api-tokens/revoke', { body: { token_id: revoking.id } });
            forgetToken(revoking.id);
            tokens.update((list) => list.filter((t) => t.id !== revoking.id));
          }}
        >
          <strong>{revoking.name}</strong> stops working at once, for every program that uses it.
          {revoking.id === own && ' It is the console’s own token: the console mints itself a new one.'}
        </Confirm>
      )}
    </section>
  );
}
