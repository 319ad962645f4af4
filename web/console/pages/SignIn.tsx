import { useState } from 'preact/hooks';
import { notice, signIn } from '../session';
import { useStore } from '../store';

/** Email and password: the browser session, through which the console mints its token. */
export function SignInPage() {
  const [busy, setBusy] = useState(false);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    await signIn(String(form.get('email')), String(form.get('password')));
    setBusy(false);
  };
  const message = useStore(notice);
  return (
    <main class="center">
      <form class="card sign-in" onSubmit={submit}>
        <h1>Workflow service</h1>
        <h2>Sign in</h2>
        <p class="muted">Sign in to the console with your account's email and password.</p>
        {message && (
          <p class={message === 'You have signed out.' ? 'note' : 'problem'} role="alert">
            {message}
          </p>
        )}
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
